"""Record real kernel replies and /proc files as the fuzzers' seed corpus.

    python csrc/fuzz/record_corpus.py [OUTDIR [PREFIX]]   (default: csrc/fuzz/corpus, "host-")

Each netlink seed is one byte (1: a dump, 0: a single reply) and the raw
datagrams of one reply, or the byte 2 and the change notifications one
command made; each /proc seed is one byte (0 igmp, 1 igmp6) and the file; each route seed
(corpus/route) two bytes (a dump or not, and 0: keep every family and table)
and the datagrams of one route reply.
Run it where the links are interesting (the tests' lab namespace, say: ip
netns exec NS python ...); the notifications are recorded as root only, and
make and remove a veth pair nfc-rec0/nfc-rec1 there.
"""
import os
import socket
import struct
import subprocess
import sys

NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
RTM_GETLINK, RTM_GETADDR, RTM_GETMULTICAST = 18, 22, 58
RTM_GETSTATS, STATS_LINK_64 = 94, 1     # filter_mask: IFLA_STATS_LINK_64 only
NETLINK_GENERIC, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME = 16, 16, 3, 2
NLMSG_DONE, NLMSG_ERROR = 3, 2
IFLA_IFNAME = 3


def request(sock, seq, mtype, flags, body):
    msg = struct.pack("=IHHII", 16 + len(body), mtype, flags, seq, 0) + body
    sock.send(msg)
    chunks = []
    while True:
        data = sock.recv(1 << 20)
        chunks.append(data)
        off, done = 0, False
        while off + 16 <= len(data):
            length, typ = struct.unpack_from("=IH", data, off)
            if typ in (NLMSG_DONE, NLMSG_ERROR) or not flags & NLM_F_DUMP:
                done = True
            off += (length + 3) & ~3 if length else len(data)
        if done:
            return b"".join(chunks)


# The watch's groups: links, IPv4 and IPv6 addresses, IPv4 and IPv6 multicast.
WATCH_GROUPS = (1, 5, 9, 37, 38)
SOL_NETLINK, NETLINK_ADD_MEMBERSHIP = 270, 1
EVENT_STEPS = {
    "events-link-add": "ip link add nfc-rec0 type veth peer name nfc-rec1",
    "events-addr-add": "ip addr add 192.0.2.77/24 dev nfc-rec0 && "
                       "ip addr add 2001:db8:77::1/64 dev nfc-rec0 valid_lft 600 preferred_lft 300",
    "events-link-up": "ip link set nfc-rec0 up && ip link set nfc-rec1 up",
    "events-rename": "ip link set nfc-rec1 name nfc-rec2",
    "events-link-del": "ip link del nfc-rec0",
}


def record_events(out, prefix):
    """Each step's notifications, as the watch socket receives them."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_NONBLOCK,
                         socket.NETLINK_ROUTE)
    sock.bind((0, 0))
    for group in WATCH_GROUPS:
        try:
            sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)
        except OSError:
            pass    # an older kernel without group notifications
    try:
        for label, command in EVENT_STEPS.items():
            subprocess.run(command, shell=True, check=True)
            data = b""
            while True:
                try:
                    data += sock.recv(1 << 20)
                except BlockingIOError:
                    break
            with open(os.path.join(out, "netlink", prefix + label), "wb") as f:
                f.write(bytes([2]) + data)
    finally:
        subprocess.run("ip link del nfc-rec0 2>/dev/null", shell=True)
        sock.close()


def record_genl_family(out, prefix):
    """The generic netlink controller's answer for the ethtool family."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    name = b"ethtool\0"
    body = struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) + \
        struct.pack("=HH", 4 + len(name), CTRL_ATTR_FAMILY_NAME) + name
    try:
        data = request(sock, 1, GENL_ID_CTRL, NLM_F_REQUEST, body)
    finally:
        sock.close()
    with open(os.path.join(out, "netlink", prefix + "genl-family-ethtool"), "wb") as f:
        f.write(bytes([0]) + data)


RTM_GETROUTE, RTA_DST = 26, 1


def record_routes(sock, out, prefix):
    """Route seeds (corpus/route): every table's routes, and two lookups."""
    os.makedirs(os.path.join(out, "route"), exist_ok=True)
    rtmsg = struct.Struct("=BBBBBBBBI")
    seeds = {
        "route-dump": (1, NLM_F_DUMP, rtmsg.pack(0, 0, 0, 0, 0, 0, 0, 0, 0)),
        "route-get4": (0, 0, rtmsg.pack(2, 32, 0, 0, 0, 0, 0, 0, 0)
                       + struct.pack("=HH", 8, RTA_DST) + socket.inet_aton("127.0.0.1")),
        "route-get6": (0, 0, rtmsg.pack(10, 128, 0, 0, 0, 0, 0, 0, 0)
                       + struct.pack("=HH", 20, RTA_DST) + socket.inet_pton(socket.AF_INET6, "::1")),
    }
    for seq, (label, (dump, flags, body)) in enumerate(seeds.items(), 100):
        data = request(sock, seq, RTM_GETROUTE, NLM_F_REQUEST | flags, body)
        with open(os.path.join(out, "route", prefix + label), "wb") as f:
            f.write(bytes([dump, 0]) + data)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    prefix = sys.argv[2] if len(sys.argv) > 2 else "host-"
    os.makedirs(os.path.join(out, "netlink"), exist_ok=True)
    os.makedirs(os.path.join(out, "procnet"), exist_ok=True)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sock.bind((0, 0))
    ifinfo = struct.pack("=BxHiII", 0, 0, 0, 0, 0)
    name = b"lo\0"
    seeds = {
        "link-dump": (1, RTM_GETLINK, NLM_F_DUMP, ifinfo),
        "link-one": (0, RTM_GETLINK, 0, struct.pack("=BxHiII", 0, 0, 1, 0, 0)),
        "link-by-name": (0, RTM_GETLINK, 0, ifinfo + struct.pack("=HH", 4 + len(name), IFLA_IFNAME)
                         + name + b"\0" * (-len(name) % 4)),
        "link-enodev": (0, RTM_GETLINK, 0, struct.pack("=BxHiII", 0, 0, 0x7ffffff0, 0, 0)),
        "addr-dump": (1, RTM_GETADDR, NLM_F_DUMP, struct.pack("=BBBBI", 0, 0, 0, 0, 0)),
        "mcast4-dump": (1, RTM_GETMULTICAST, NLM_F_DUMP, struct.pack("=BBBBI", 2, 0, 0, 0, 0)),
        "mcast6-dump": (1, RTM_GETMULTICAST, NLM_F_DUMP, struct.pack("=BBBBI", 10, 0, 0, 0, 0)),
        "stats-dump": (1, RTM_GETSTATS, NLM_F_DUMP, struct.pack("=BBHiI", 0, 0, 0, 0, STATS_LINK_64)),
        "stats-one": (0, RTM_GETSTATS, 0, struct.pack("=BBHiI", 0, 0, 0, 1, STATS_LINK_64)),
    }
    for seq, (label, (dump, mtype, flags, body)) in enumerate(seeds.items(), 1):
        data = request(sock, seq, mtype, NLM_F_REQUEST | flags, body)
        with open(os.path.join(out, "netlink", prefix + label), "wb") as f:
            f.write(bytes([dump]) + data)
    record_genl_family(out, prefix)
    record_routes(sock, out, prefix)
    for i, path in enumerate(("/proc/net/igmp", "/proc/net/igmp6")):
        with open(path, "rb") as f, open(os.path.join(out, "procnet", prefix + os.path.basename(path)), "wb") as g:
            g.write(bytes([i]) + f.read())
    if os.geteuid() == 0:
        record_events(out, prefix)


if __name__ == "__main__":
    main()
