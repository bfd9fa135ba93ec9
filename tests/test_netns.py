"""netifc.NetNS: namespaces the tests build, each read from the tests' own
namespace and compared with `ip -n NAME -j ...`; several at once from several
threads; the caller's namespace never moves; a deleted namespace held open;
errors; fork; Watcher and live tables; the CLI's -n."""

import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import threading

import pytest

import netifc
from conftest import require_namespaces
from nslab import (
    TOOL_ENV,
    Host,
    Netns,
    in_forked_child,
    in_new_thread,
    ip_addrs,
    ip_groups,
    ip_links,
    printed_until,
    socket_inodes,
    until_watching,
    wait_link_locals,
    watch_until,
)
from test_cli_ip import compare
from test_conformance import check_addr, check_link

TIMEOUT = 10


def my_netns():
    return os.readlink("/proc/thread-self/ns/net")


def build(tag, i):
    """A namespace with a veth pair, a tun link and addresses of its own (i
    makes each namespace's different)."""
    ns = Netns(tag)
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                f"link add a{i} type veth peer name b{i}",
                f"tuntap add dev d{i} mode tun",
                f"addr add 192.0.2.{i + 1}/24 brd + dev a{i}",
                f"addr add 2001:db8:{i}::1/64 dev a{i}",
                f"addr add 10.{i}.0.1 peer 10.{i}.0.2 dev d{i}",
                f"addr add 198.51.100.{i + 1}/32 dev b{i}",
                f"link set a{i} up",
                f"link set b{i} up",
                f"link set d{i} up",
                f"link set d{i} mtu {1400 + i}",
            ]
        )
        wait_link_locals(ns, [f"a{i}", f"b{i}"])
        return ns
    except BaseException:
        ns.delete()
        raise


@pytest.fixture(scope="module")
def nets():
    require_namespaces()
    built = []
    try:
        for i in range(3):
            built.append(build("nsa", i))
        yield built
    finally:
        for ns in built:
            ns.delete()


# A NetNS needs the netlink backend: every test runs on each of its paths
# (the getifaddrs backend's refusal is a test of its own).
pytestmark = pytest.mark.backends(
    "netlink", "netlink-nostrict", "netlink-procmcast4", "netlink-procmcast"
)


def addr_key(a):
    return (a.index, "inet" if a.family == socket.AF_INET else "inet6", a.address)


# ---- each namespace against ip -n NAME -j ---------------------------------------------


def check_namespace(ns, n, backend):
    """Every call of NetNS n against ip's view of ns."""
    links, addrs, groups = ip_links(ns), ip_addrs(ns), ip_groups(ns)
    got = n.interfaces()
    assert sorted(i.index for i in got) == sorted(links)
    for i in got:
        check_link(i, links[i.index], backend)
        check_link(n.interface_by_index(i.index), links[i.index], backend)
        check_link(n.interface_by_name(i.name), links[i.index], backend)
        rows = addrs.get(i.index, [])
        mine = i.addrs()
        assert len(mine) == len(rows), i
        for a, w in zip(mine, rows):
            check_addr(a, w, backend)
        assert sorted(
            (("inet" if g.family == socket.AF_INET else "inet6"), g.address, g.zone)
            for g in i.multicast_addrs()
        ) == groups.get(i.index, []), i
    flat = sorted(
        (w for rows in addrs.values() for w in rows),
        key=lambda w: (w["index"], w["family"], w["address"]),
    )
    every = sorted(n.interface_addrs(), key=addr_key)
    assert len(every) == len(flat)
    for a, w in zip(every, flat):
        check_addr(a, w, backend)
    snap = n.snapshot()
    assert snap.interfaces == got
    assert sorted(snap.addrs, key=addr_key) == every
    msnap = n.multicast_snapshot()
    assert {
        i: sorted(
            (("inet" if g.family == socket.AF_INET else "inet6"), g.address, g.zone)
            for g in msnap.addrs_of(i)
        )
        for i in links
    } == {i: groups.get(i, []) for i in links}


def test_each_namespace_matches_ip(nets, backend):
    home = my_netns()
    for ns in nets:
        with netifc.NetNS(ns.name) as n:
            check_namespace(ns, n, backend)
        assert my_netns() == home
    # and this thread's own calls still answer for its own namespace
    host = Host()
    assert sorted(i.index for i in netifc.interfaces()) == sorted(ip_links(host))


def test_namespaces_differ_from_each_other_and_from_the_host(nets, backend):
    seen = set()
    for k, ns in enumerate(nets):
        with netifc.NetNS(ns.name) as n:
            names = frozenset(i.name for i in n.interfaces())
            assert names == {"lo", f"a{k}", f"b{k}", f"d{k}"}
            assert n.interface_by_name(f"d{k}").mtu == 1400 + k
            with pytest.raises(netifc.NoSuchInterface, match="'d9'"):
                n.interface_by_name("d9")
            seen.add(names)
    assert len(seen) == len(nets)


def test_by_path_and_by_descriptor(nets, backend):
    ns = nets[0]
    want = sorted((i["index"], i["name"]) for i in ip_links(ns).values())
    fd = os.open(f"/run/netns/{ns.name}", os.O_RDONLY)
    # ip netns exec enters the namespace, then runs the shell: once it has
    # said so, the process (the same one, sleep after exec) is in there.
    sleeper = subprocess.Popen(
        ["ip", "netns", "exec", ns.name, "sh", "-c", "echo in; exec sleep 30"],
        stdout=subprocess.PIPE,
        env=TOOL_ENV,  # (dash crashes with ThreadSanitizer's runtime preloaded)
    )
    try:
        printed_until(sleeper, lambda lines: "in" in lines, TIMEOUT)
        assert os.readlink(f"/proc/{sleeper.pid}/ns/net") != my_netns(), (
            "ip netns exec ran its command in the tests' own namespace"
        )
        for target in (f"/run/netns/{ns.name}", f"/proc/{sleeper.pid}/ns/net", fd):
            with netifc.NetNS(target) as n:
                assert sorted((i.index, i.name) for i in n.interfaces()) == want, target
                assert n.name is None
        os.fstat(fd)  # the caller's descriptor is still its own, open
    finally:
        sleeper.kill()
        sleeper.wait()
        sleeper.stdout.close()
        os.close(fd)
    with netifc.NetNS(ns.name) as n:
        assert (n.name, n.path) == (ns.name, f"/run/netns/{ns.name}")
        assert ns.name in repr(n)
    assert n.closed and "closed" in repr(n)


def test_the_fallback_paths_read_the_namespace(nets, backend):
    """Groups from /proc/net/igmp{,6} (the fallback backends) are the
    namespace's, not the reading thread's: a group only it has is there."""
    ns = nets[1]
    with netifc.NetNS(ns.name) as n:
        a1 = n.interface_by_name("a1")
        groups = {g.address for g in a1.multicast_addrs()}
    assert {g[1] for g in ip_groups(ns)[a1.index]} == groups
    assert "ff02::1:ff00:1" in groups  # the solicited-node group of 2001:db8:1::1


# ---- threads --------------------------------------------------------------------------


def test_threads_each_with_its_own_namespace_at_once(nets, backend):
    """One thread per namespace, and two more sharing one NetNS, all calling at
    once: each answer is its namespace's; no thread's namespace moves."""
    want = {
        ns.name: sorted((i["index"], i["name"], i["mtu"]) for i in ip_links(ns).values())
        for ns in nets
    }
    home = my_netns()
    shared = netifc.NetNS(nets[0].name)
    start = threading.Barrier(len(nets) + 2)
    problems = []

    def work(name, n):
        try:
            start.wait(TIMEOUT)
            for _ in range(60):
                got = sorted((i.index, i.name, i.mtu) for i in n.interfaces())
                if got != want[name]:
                    problems.append((name, got))
                snap = n.snapshot()
                if {a.index for a in snap.addrs} - {i.index for i in snap.interfaces}:
                    problems.append((name, "an address of no interface"))
                if my_netns() != home:
                    problems.append((name, "the thread moved"))
        except BaseException as e:  # reported by the main thread
            problems.append((name, repr(e)))

    opened = [netifc.NetNS(ns.name) for ns in nets]
    threads = [threading.Thread(target=work, args=(ns.name, n)) for ns, n in zip(nets, opened)]
    threads += [threading.Thread(target=work, args=(nets[0].name, shared)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    for n in (*opened, shared):
        n.close()
    assert problems == []
    assert my_netns() == home


def test_one_netns_used_from_a_thread_it_was_not_made_in(nets, backend):
    n = netifc.NetNS(nets[2].name)
    try:
        names = in_new_thread(lambda: sorted(i.name for i in n.interfaces()), timeout=TIMEOUT)
        assert names == ["a2", "b2", "d2", "lo"]
    finally:
        n.close()


# ---- lifetime -----------------------------------------------------------------------


def test_a_deleted_namespace_answers_while_held(backend):
    require_namespaces()
    ns = build("nsdel", 5)
    try:
        n = netifc.NetNS(ns.name)
        before = ip_links(ns)
        addrs = sorted(map(str, n.interface_addrs()))
    finally:
        ns.delete()
    try:
        assert not os.path.exists(f"/run/netns/{ns.name}")
        with pytest.raises(FileNotFoundError):
            netifc.NetNS(ns.name)
        assert sorted((i.index, i.name) for i in n.interfaces()) == sorted(
            (w["index"], w["name"]) for w in before.values()
        )
        assert sorted(map(str, n.interface_addrs())) == addrs
        assert n.interface_by_name("d5").addrs()[0].address == "10.5.0.1"
        lv = n.live()
        assert lv.by_name("a5").mtu == 1500
        lv.close()
    finally:
        n.close()
    with pytest.raises(ValueError, match="closed"):
        n.interfaces()
    with pytest.raises(ValueError, match="closed"):
        n.fileno()
    n.close()  # again: nothing


def test_closed_netns_and_its_interfaces(nets, backend):
    n = netifc.NetNS(nets[0].name)
    a0 = n.interface_by_name("a0")
    assert [a.address for a in a0.addrs() if a.family == socket.AF_INET] == ["192.0.2.1"]
    n.close()
    for call in (
        n.interfaces,
        n.interface_addrs,
        n.snapshot,
        a0.addrs,
        a0.multicast_addrs,
        lambda: n.interface_by_index(1),
        lambda: n.interface_by_name("lo"),
    ):
        with pytest.raises(ValueError, match="closed network namespace"):
            call()


def test_interfaces_ask_their_namespace_for_addresses(nets, backend):
    """An Interface from a NetNS asks that namespace, even where the caller's
    namespace has a link with the same index."""
    with netifc.NetNS(nets[1].name) as n:
        for i in n.interfaces():
            want = [(w["address"], w["prefixlen"]) for w in ip_addrs(nets[1]).get(i.index, [])]
            assert [(a.address, a.prefixlen) for a in i.addrs()] == want


# ---- errors -------------------------------------------------------------------------------


def test_missing_namespace_is_named(backend):
    require_namespaces()
    with pytest.raises(FileNotFoundError, match="nsmissing-x") as e:
        netifc.NetNS("nsmissing-x")
    assert e.value.errno == errno.ENOENT and e.value.filename == "/run/netns/nsmissing-x"
    with pytest.raises(FileNotFoundError, match="/no/such/ns"):
        netifc.NetNS("/no/such/ns")


def test_bad_arguments():
    for bad in ("", ".", "..", "a\0b"):
        with pytest.raises(ValueError):
            netifc.NetNS(bad)
    for bad in (None, 1.5, True, b"name", ["x"]):
        with pytest.raises(TypeError):
            netifc.NetNS(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        netifc.NetNS(-1)
    r, w = os.pipe()
    os.close(w)
    try:
        with pytest.raises(OSError) as e:
            netifc.NetNS(r)  # a descriptor, but no network namespace
        assert e.value.errno == errno.EINVAL
    finally:
        os.close(r)
    with pytest.raises(OSError) as e:
        netifc.NetNS("/etc/hostname" if os.path.exists("/etc/hostname") else "/dev/null")
    assert e.value.errno == errno.EINVAL and "not a network namespace" in str(e.value)


def test_errors_name_the_namespace_once(tmp_path):
    """The OSError's filename is the path; its text adds only a name."""
    require_namespaces()  # entering one needs CAP_SYS_ADMIN: else EPERM
    cases = [
        ("/etc/passwd", errno.EINVAL, "[Errno 22] not a network namespace: '/etc/passwd'"),
        (
            str(tmp_path / "gone"),
            errno.ENOENT,
            f"[Errno 2] no such network namespace: '{tmp_path / 'gone'}'",
        ),
        (
            "nfc-no-such-ns",
            errno.ENOENT,
            "[Errno 2] no such network namespace 'nfc-no-such-ns': '/run/netns/nfc-no-such-ns'",
        ),
    ]
    for arg, err, text in cases:
        with pytest.raises(OSError) as e:
            netifc.NetNS(arg)
        assert (e.value.errno, str(e.value)) == (err, text)
        assert str(e.value).count(e.value.filename) == 1
        r = subprocess.run(
            [sys.executable, "-m", "netifc", "-n", arg], capture_output=True, text=True, cwd="/"
        )
        assert r.returncode == 1
        assert r.stderr.count(e.value.filename) == 1, r.stderr


def test_getifaddrs_backend_refuses(nets):
    n = netifc.NetNS(nets[0].name)
    netifc._netifc._set_backend("getifaddrs", 0)
    try:
        with pytest.raises(NotImplementedError, match="getifaddrs backend"):
            netifc.NetNS(nets[0].name)
        with pytest.raises(NotImplementedError, match="getifaddrs backend"):
            n.interfaces()  # opened before the backend changed
    finally:
        netifc._netifc._set_backend("netlink", 0)
        n.close()
    r = subprocess.run(
        [sys.executable, "-m", "netifc", "-n", nets[0].name],
        cwd="/",
        capture_output=True,
        text=True,
        env=dict(os.environ, NETIFC_BACKEND="getifaddrs"),
    )
    assert r.returncode == 1 and "getifaddrs backend" in r.stderr and r.stdout == ""


def test_unprivileged_gets_permission_error(nets, backend):
    """A process that dropped root (setuid nobody) may not enter."""
    code = (
        "import os, sys, netifc\n"  # first: the interpreter's files may be closed to nobody
        "os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
        "try:\n    netifc.NetNS(sys.argv[1])\n"
        "except PermissionError as e:\n    print('PermissionError', e.errno, e)\n"
        "else:\n    print('entered')\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, nets[0].name],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=60,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
    )
    assert r.returncode == 0, r.stderr
    word, err, text = r.stdout.split(" ", 2)
    assert word == "PermissionError" and int(err) in (errno.EPERM, errno.EACCES)
    assert nets[0].name in text


# ---- fork ------------------------------------------------------------------------------


def test_forked_child_makes_its_own_socket(nets, backend):
    """The child holds none of the parent's NetNS sockets (closed at the fork),
    and answers for the same namespace through a socket of its own; its live
    tables of the namespace open their own watch socket there."""
    ns = nets[0]
    before = socket_inodes()
    n = netifc.NetNS(ns.name)
    n.interfaces()
    parents = socket_inodes() - before
    assert len(parents) == 1  # the NetNS's one socket
    want = sorted(i.name for i in n.interfaces())
    lv = n.live()  # its watch socket is the parent's too

    def child():
        held = socket_inodes()
        return {
            "held": sorted(held & parents),
            "names": sorted(i.name for i in n.interfaces()),
            "new": sorted(socket_inodes() - held),
            "live": sorted(i.name for i in lv.interfaces),  # reopened in the child
        }

    report = in_forked_child(child)
    assert report["held"] == [] and report["names"] == want
    # its own kept socket; none on the path that opens one per call
    assert len(report["new"]) == (0 if backend == "netlink-nostrict" else 1)
    assert report["live"] == want
    assert sorted(i.name for i in n.interfaces()) == want  # the parent's still works
    assert sorted(i.name for i in lv.interfaces) == want
    lv.close()
    n.close()


# ---- Watcher and live tables -------------------------------------------------------


def test_watcher_in_a_namespace_sees_ip_n_changes(nets, backend):
    ns = nets[2]
    home = my_netns()
    with netifc.NetNS(ns.name) as n, n.Watcher() as w:
        assert sorted(i.name for i in w.interfaces) == ["a2", "b2", "d2", "lo"]
        ns.ip("tuntap", "add", "dev", "w2", "mode", "tun")
        ns.ip("addr", "add", "203.0.113.2/24", "dev", "w2")
        ns.ip("link", "set", "d2", "mtu", "1300")
        events = []

        def told_mtu(new):
            events.extend(new)
            return any(isinstance(e, netifc.LinkChanged) and e.new.mtu == 1300 for e in new)

        watch_until(w, told_mtu, lambda: f"d2's MTU 1300 told (events: {events})", TIMEOUT)
        kinds = [(type(e).__name__, getattr(e, "link", None) and e.link.name) for e in events]
        assert ("LinkAdded", "w2") in kinds
        added = [e.addr for e in events if isinstance(e, netifc.AddrAdded)]
        assert [(a.address, a.prefixlen) for a in added] == [("203.0.113.2", 24)]
        w2 = [e.link for e in events if isinstance(e, netifc.LinkAdded)][0]
        assert w2.index == ip_links(ns)[w2.index]["index"] and w2.name == "w2"
        assert [a.address for a in w2.addrs()] == ["203.0.113.2"]  # asked of the namespace
        assert {i.name for i in w.interfaces} == {"a2", "b2", "d2", "lo", "w2"}
        ns.ip("link", "del", "w2")
        ns.ip("link", "set", "d2", "mtu", "1402")
    assert my_netns() == home


def test_live_tables_in_a_namespace(nets, backend):
    ns = nets[1]
    with netifc.NetNS(ns.name) as n:
        lv = netifc.live(n)
        try:
            assert lv.by_name("d1").mtu == 1401
            ns.ip("link", "set", "d1", "mtu", "1234")
            assert lv.by_name("d1").mtu == 1234  # read-your-writes
            assert sorted(map(str, lv.addrs)) == sorted(map(str, n.interface_addrs()))
            got = in_new_thread(lambda: lv.by_name("d1").mtu, timeout=TIMEOUT)
            assert got == 1234
            with pytest.raises(netifc.NoSuchInterface):
                lv.by_name("eth0-not-here")
        finally:
            lv.close()
            ns.ip("link", "set", "d1", "mtu", "1401")


# ---- command line ------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["addr", "-4", "-6", "brief", "multicast"])
def test_cli_n_is_ip_n(nets, backend, form):
    """netifc -n NAME against ip -n NAME, from the tests' own namespace."""
    host = Host()
    ns = nets[0]
    if form == "multicast":
        out = subprocess.run(
            [sys.executable, "-m", "netifc", "-n", ns.name, "-j", "-m"],
            cwd="/",
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        got = {
            l["index"]: sorted((g["family"], g["address"], g["zone"]) for g in l["multicast"])
            for l in json.loads(out)
        }
        assert got == {i: ip_groups(ns).get(i, []) for i in ip_links(ns)}
        return
    args = {"addr": (), "-4": ("-4",), "-6": ("-6",), "brief": ("-b",)}[form]
    ip_args = {
        "addr": ("addr",),
        "-4": ("-4", "addr"),
        "-6": ("-6", "addr"),
        "brief": ("-br", "addr"),
    }[form]
    compare(host, backend, ("-n", ns.name, *args), ("-n", ns.name, *ip_args), brief=form == "brief")


def test_cli_n_json_and_errors(nets, backend):
    ns = nets[1]
    out = subprocess.run(
        [sys.executable, "-m", "netifc", "--netns", ns.name, "-j"],
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ip = ns.ipj("addr", "show")
    assert [
        (l["index"], l["name"], l["mtu"], [a["address"] for a in l["addrs"]])
        for l in json.loads(out)
    ] == [
        (l["ifindex"], l["ifname"], l["mtu"], [a["local"] for a in l.get("addr_info", [])])
        for l in ip
    ]
    out = subprocess.run(
        [sys.executable, "-m", "netifc", "-n", ns.name, "-s", "-j"],
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert [(d["index"], d["name"]) for d in json.loads(out)] == [
        (l["ifindex"], l["ifname"]) for l in ns.ipj("-s", "link", "show")
    ]
    r = subprocess.run(
        [sys.executable, "-m", "netifc", "-n", "nsmissing-y"],
        cwd="/",
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "nsmissing-y" in r.stderr and r.stdout == ""
    r = subprocess.run(
        [sys.executable, "-m", "netifc", "-n", ns.name, "nosuch0"],
        cwd="/",
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "nosuch0" in r.stderr


def test_cli_watch_in_a_namespace(nets, backend):
    ns = nets[0]
    p = subprocess.Popen(
        [sys.executable, "-m", "netifc", "-n", ns.name, "--watch", "--json"],
        cwd="/",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        until_watching(p, timeout=TIMEOUT, ns=ns)
        ns.ip("addr", "add", "192.0.2.77/24", "dev", "a0")
        ns.ip("addr", "del", "192.0.2.77/24", "dev", "a0")
        seen, rest = printed_until(
            p,
            lambda lines: any(json.loads(line)["event"] == "addr_removed" for line in lines),
            TIMEOUT,
        )
        p.send_signal(2)
        out, err = p.communicate(timeout=TIMEOUT)
        out = "\n".join(seen + [rest + out])
    finally:
        p.kill()
    assert p.returncode == 0, err
    index = ip_links(ns)
    a0 = [i for i, w in index.items() if w["name"] == "a0"][0]
    got = [
        (d["event"], d.get("index"), d["addr"]["address"])
        for d in map(json.loads, out.splitlines())
        if d["event"].startswith("addr")
    ]
    assert got == [("addr_added", a0, "192.0.2.77"), ("addr_removed", a0, "192.0.2.77")]


# ---- routes and counters ----------------------------------------------------------------


def route_key(dst, dev, gateway, table):
    dst = "0.0.0.0/0" if dst == "default" else dst
    if "/" not in dst:
        dst += "/128" if ":" in dst else "/32"
    return (dst, dev, gateway, table)


def test_routes_match_ip_n(nets, backend):
    tables = {"main": 254, "local": 255}
    for k, ns in enumerate(nets):
        ns.ip("route", "replace", "default", "via", f"192.0.2.{100 + k}", "dev", f"a{k}")
        want = sorted(
            route_key(
                r["dst"],
                r.get("dev"),
                r.get("gateway"),
                tables.get(r.get("table", "main"), r.get("table")),
            )
            for r in ns.ipj("-4", "route", "show", "table", "all")
        )
        with netifc.NetNS(ns.name) as n:
            got = sorted(
                route_key(r.destination, r.ifname or None, r.gateway, r.table)
                for r in n.routes(socket.AF_INET, "all")
            )
            assert got == want
            gws = n.default_gateways()[socket.AF_INET]
            assert [(g.gateway, g.ifname) for g in gws] == [(f"192.0.2.{100 + k}", f"a{k}")]
            r = n.route_get(f"192.0.2.{50 + k}")
            ip = ns.ipj("route", "get", f"192.0.2.{50 + k}")[0]
            assert (
                (r.ifname, r.prefsrc) == (ip["dev"], ip["prefsrc"]) == (f"a{k}", f"192.0.2.{k + 1}")
            )
        ns.ip("route", "del", "default")


def proc_net_dev(ns):
    """{name: (rx_bytes, rx_packets, tx_bytes, tx_packets)} from the namespace's /proc/net/dev."""
    out = ns.run(["cat", "/proc/net/dev"], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines()[2:]:
        name, cols = line.split(":", 1)
        c = [int(x) for x in cols.split()]
        rows[name.strip()] = (c[0], c[1], c[8], c[9])
    return rows


def test_counters_are_the_namespaces(nets, backend):
    ns = nets[2]
    before = proc_net_dev(ns)
    if shutil.which("ping"):  # some traffic on lo, counted between the two reads
        ns.run(["ping", "-c", "3", "-i", "0.2", "-q", "127.0.0.1"], capture_output=True)
    with netifc.NetNS(ns.name) as n:
        got = {c.ifname: c for c in n.counters()}
        one = n.interface_by_name("lo").counters()
        settings = n.interface_by_name("a2").link_settings()
    after = proc_net_dev(ns)
    assert set(got) == set(after) == {"lo", "a2", "b2", "d2"}
    for name, c in got.items():
        low, high = before[name], after[name]
        for v, lo_, hi in zip((c.rx_bytes, c.rx_packets, c.tx_bytes, c.tx_packets), low, high):
            assert lo_ <= v <= hi, (name, c)
    assert one.ifname == "lo" and before["lo"][1] <= one.rx_packets <= after["lo"][1]
    speed = ns.run(["cat", "/sys/class/net/a2/speed"], capture_output=True, text=True).stdout
    if speed.strip().isdigit():
        assert settings is not None and settings.speed == int(speed)
