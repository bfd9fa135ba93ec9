"""python -m netifc's text next to iproute2's, line by line.

`ip addr`, `ip -4 addr`, `ip -6 addr`, `ip addr show dev X` and their `-br`
forms, on the host, in the lab namespace and in a namespace of this module's
own (labels, altnames, a bridge port, a link into another namespace, odd
flags), on every backend and fallback path. From ip's output the test
removes exactly what docs/cli.rst says netifc leaves out (strip_ip below), and
on the getifaddrs backend what docs/interfaces.rst says that backend does not know
(_as_getifaddrs_knows); any other difference fails.
"""

import json
import os
import re
import subprocess
import sys
import uuid

import pytest

from nslab import Netns
from test_cli import FALLBACKS

TUNNEL_TYPES = ("ipip", "sit", "gre", "tunnel6", "gre6")
FIRST = re.compile(r"^(\d+): (.*?): <([^>]*)> (.*)$")
LINK_TAIL = (
    r" (?:link-netns|link-netnsid|permaddr) \S+| protodown on"
    r"| protodown_reason <[^>]*>"
)
LIFETIMES = re.compile(r"^       valid_lft (\S+) preferred_lft (\S+)$")


# One process runs main() for each command line it is given, writing a line
# of its own between their outputs: the installed package, as `python -m
# netifc` runs it, without a Python start-up per command line.
MANY = """
import json, sys
import netifc._netifc as m
from netifc.__main__ import main
name, options, argvs, mark = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
if options:
    m._set_backend(name, options)
for argv in argvs:
    status = main(argv)
    sys.stdout.write(f"{mark} {status}\\n")
    sys.stdout.flush()
"""


def netifc_run(place, backend, *args):
    """`python -m netifc ARGS` run in `place` with `backend` (the installed
    package: run from "/", never the source tree)."""
    return netifc_many(place, backend, [args])[0]


def netifc_many(place, backend, argvs):
    """What `python -m netifc ARGV` prints for each ARGV, from one process."""
    name, options = backend.split("-")[0], FALLBACKS[backend]
    mark = f"--- {uuid.uuid4().hex} exit"
    if len(argvs) == 1 and not options:
        argv = [sys.executable, "-m", "netifc", *argvs[0]]
    else:
        argv = [sys.executable, "-c", MANY, name, str(options), json.dumps(argvs), mark]
    env = dict(os.environ, NETIFC_BACKEND=name)
    r = place.run(argv, capture_output=True, text=True, errors="surrogateescape", env=env, cwd="/")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    if argv[1] == "-m":
        return [r.stdout]
    outs = r.stdout.split(f"{mark} 0\n")
    assert len(outs) == len(argvs) + 1 and outs[-1] == "", r.stdout[-300:]
    return outs[:-1]


def ip_text(place, *args):
    r = place.ip(*args)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _at_link(link):
    """The "@..." ip writes after a name: the lower or peer link (ip -j's
    "link", "link_index" when it is in another namespace, null for index 0)."""
    if "link_index" in link:
        return f"@if{link['link_index']}"
    if "link" in link:
        return "@NONE" if link["link"] is None else f"@{link['link']}"
    return ""


def _cut(line, token):
    assert token in line, (token, line)
    return line.replace(token, "", 1)


def strip_ip(text, doc):
    """`ip addr` text less exactly what netifc does not print (docs/cli.rst):
    blanks at line ends; on the first line the "@link" after the name, M-DOWN,
    an XDP program, qdisc, master, group and qlen; on the link line
    link-netns/link-netnsid, permaddr, protodown and an IP tunnel's
    endpoints; on an address line metric, any (anycast), proto (the
    address's protocol). `doc` is ip -j's view of the same call and says
    where the link is."""
    links = {link["ifindex"]: link for link in doc}
    out, addrs = [], iter(())
    for line in text.splitlines():
        line = line.rstrip(" ")
        first = FIRST.match(line)
        if first:
            assert next(addrs, None) is None  # every address of the one before seen
            link = links[int(first[1])]
            addrs = iter(link.get("addr_info", []))
            name = first[2]
            suffix = _at_link(link)
            assert name.endswith(suffix), (name, suffix)
            flags = first[3].replace(",M-DOWN", "") if "M-DOWN" in link["flags"] else first[3]
            rest = re.sub(r" (?:qdisc|master|group|qlen) \S+| xdp\S*", "", " " + first[4])
            # Without the link line (-4, -6) its tail ends the first line.
            rest = re.sub(LINK_TAIL, "", rest)
            line = f"{first[1]}: {name[: len(name) - len(suffix)]}: <{flags}>{rest}"
        elif line.startswith("    link/"):
            kind = line.split()[0][len("link/") :]
            if kind in TUNNEL_TYPES:
                line = f"    link/{kind}"
            line = re.sub(LINK_TAIL, "", line)
        elif line.startswith(("    inet ", "    inet6 ")):
            a = next(addrs)
            assert line.split()[0] == a["family"], (line, a)
            if "metric" in a:
                line = _cut(line, f" metric {a['metric']}")
            if "anycast" in a:
                line = _cut(line, f" any {a['anycast']}")
            if "protocol" in a:  # IFA_PROTO, which iproute2 prints since 6.3
                line = _cut(line, f" proto {a['protocol']}")
        out.append(line)
    assert next(addrs, None) is None
    return "".join(line + "\n" for line in out)


def _width(text):
    return len(os.fsencode(text))


def strip_ip_brief(text, doc):
    """`ip -br addr` text less the "@link" after each name (the name column
    padded again to ip's 16 bytes), each address's metric, and blanks at line
    ends."""
    lines = text.splitlines()
    assert len(lines) == len(doc)
    out = []
    for line, link in zip(lines, doc):
        shown = link["ifname"] + _at_link(link)
        assert line.startswith(shown + " " * max(0, 16 - _width(shown)) + " "), (line, shown)
        rest = line[len(shown) + max(0, 16 - _width(shown)) + 1 :]
        name = link["ifname"] + " " * max(0, 16 - _width(link["ifname"]))
        out.append(re.sub(r" metric \d+", "", f"{name} {rest}").rstrip(" "))
    return "".join(line + "\n" for line in out)


def _clock(got, before, after):
    """A finite lifetime counts down between ip's two runs: netifc's may be any
    value from ip's later reading to its earlier one; shown as the earlier."""
    fixed = []
    for g, b, a in zip(got.splitlines(), before.splitlines(), after.splitlines()):
        mg, mb, ma = LIFETIMES.match(g), LIFETIMES.match(b), LIFETIMES.match(a)
        if mg and mb and ma:
            values = []
            for k in (1, 2):
                nums = [re.fullmatch(r"(-?\d+)sec", m[k]) for m in (mg, mb, ma)]
                if all(nums) and int(nums[2][1]) <= int(nums[0][1]) <= int(nums[1][1]):
                    values.append(mb[k])
                else:
                    values.append(mg[k])
            g = f"       valid_lft {values[0]} preferred_lft {values[1]}"
        fixed.append(g)
    return "".join(line + "\n" for line in fixed) if len(fixed) == len(got.splitlines()) else got


def _ip_views(place, ip_args):
    return ip_text(place, *ip_args), json.loads(ip_text(place, "-j", *ip_args) or "[]")


def compare(place, backend, netifc_args, ip_args, brief=False):
    """netifc's text == ip's after strip_ip (see compare_many)."""
    return compare_many(place, backend, [(netifc_args, ip_args, brief)])[0]


def compare_many(place, backend, cases):
    """For each case (netifc's arguments, ip's, brief or not): netifc's text ==
    ip's less strip_ip's list, read before and after netifc (a lifetime may
    count down in between). A case whose namespace changed otherwise while it
    was read is read again, alone."""
    views = [_ip_views(place, ip_args) for _, ip_args, _ in cases]
    outs = netifc_many(place, backend, [list(args) for args, _, _ in cases])
    results = []
    for (args, ip_args, brief), (before, doc), got in zip(cases, views, outs):
        for _ in range(3):
            after = ip_text(place, *ip_args) if re.search(r"\dsec", before) else before
            if re.sub(r"\d+sec", "", before) == re.sub(r"\d+sec", "", after):
                break
            before, doc = _ip_views(place, ip_args)
            got = netifc_many(place, backend, [list(args)])[0]
        results.append(_check(got, before, after, doc, ip_args, brief, backend))
    return results


def _check(got, before, after, doc, ip_args, brief, backend):
    want = (strip_ip_brief if brief else strip_ip)(before, doc)
    if "-6" in ip_args and "show" not in ip_args and not brief:
        # ip -6 addr dumps links through the kernel's IPv6 handler, which sends
        # no altnames; netifc shows them in every form (docs/cli.rst).
        got = "".join(
            line + "\n" for line in got.splitlines() if not line.startswith("    altname ")
        )
    if backend == "getifaddrs":
        got, want = _without_state(got, brief), _as_getifaddrs_knows(want, brief)
    else:
        got = _clock(got, before, after)
    assert got == want, ip_args
    return got


def _without_state(text, brief):
    """The link state, which the getifaddrs backend derives from the flags
    (docs/interfaces.rst), out of either side."""
    if brief:
        return "".join(re.sub(r"^(\S+ +)\S+ +", r"\1", line) + "\n" for line in text.splitlines())
    return re.sub(r"(?m)^(\d+: .*) state \S+", r"\1", text)


def _as_getifaddrs_knows(text, brief):
    """ip's (stripped) text less what the getifaddrs backend does not know:
    the link state, altnames, address flags (their words end an address line
    but for an IPv4 label, "dynamic" included), a broadcast equal to the
    address (getifaddrs gives the address there when there is none);
    lifetimes read "unknown"."""
    out = []
    for line in _without_state(text, brief).splitlines():
        if line.startswith("    altname "):
            continue
        if LIFETIMES.match(line):
            line = "       valid_lft unknown preferred_lft unknown"
        elif line.startswith("    inet "):  # the label, which it knows, ends the line
            line = re.sub(r"^(    inet ([\d.]+)/\d+) brd \2 ", r"\1 ", line)
            line = re.sub(r"( scope \S+).* (\S+)$", r"\1 \2", line)
        elif line.startswith("    inet6 "):
            line = re.sub(r"( scope \S+).*", r"\1", line)
        out.append(line)
    return "".join(line + "\n" for line in out)


def build_odd():
    """A namespace with what the lab lacks: altnames, IPv4 labels, metrics, a
    /32 with a broadcast, a bridge port, a link into another namespace, a
    lower link (macvlan), a non-ASCII name without a link, NOARP/PROMISC/
    ALLMULTI, NO-CARRIER, every settable address flag and finite lifetimes
    on IPv4."""
    ns, far = Netns("cli"), Netns("clifar")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                "link add x0 type veth peer name x1",
                "link add y0 type veth peer name y1",
                f"link set y1 netns {far.name}",
                "link add m0 link x0 type macvlan",
                "link add i0 type ifb",
                "link add d\u00e90 type bridge",
                "link add br1 type bridge",
                "tuntap add dev tap0 mode tap",
                "link set tap0 master br1",
                "link property add dev i0 altname i0-first altname i0-second",
                "link property add dev x0 altname x0-alt",
                "link set i0 promisc on allmulticast on arp off",
            ]
        )
        ns.batch(
            [
                "addr add 10.1.0.1/24 brd + dev i0 label i0:web",
                "addr add 10.1.0.2/24 dev i0",
                "addr add 10.2.0.1/32 broadcast 10.2.0.1 dev i0",
                "addr add 10.3.0.1/24 dev i0 noprefixroute",
                "addr add 10.4.0.1/24 dev i0 metric 50",
                "addr add 10.5.0.1/24 dev i0 valid_lft 500 preferred_lft 400",
                "addr add 239.1.1.1/32 dev i0 autojoin",
                "addr add 2001:db8:a::1/64 dev i0 nodad noprefixroute",
                "addr add 2001:db8:b::1/64 dev i0 mngtmpaddr nodad",
                "addr add 2001:db8:c::1/64 dev i0 home nodad",
                "addr add 2001:db8:d::1/64 dev i0 optimistic valid_lft 900 preferred_lft 0",
                "addr add 2001:db8:e::1/64 dev i0 metric 70 nodad",
                "addr add 10.6.0.1/24 dev x0",
                "addr add 10.7.0.1/24 dev y0",
                "addr add 10.8.0.1/24 dev d\u00e90",
                "link set i0 up",
                "link set x0 up",
                "link set x1 up",
                "link set m0 up",
                "link set y0 up",
                "link set tap0 up",
                "link set br1 up",
            ]
        )
        far.ip("link", "set", "y1", "up")
        return ns, far
    except BaseException:
        ns.delete()
        far.delete()
        raise


@pytest.fixture(scope="module")
def odd():
    from conftest import require_namespaces

    require_namespaces()
    ns, far = build_odd()
    yield ns
    ns.delete()
    far.delete()


@pytest.fixture(params=["host", "lab", "odd"])
def place(request):
    return request.getfixturevalue(request.param)


FORMS = {
    "addr": ((), ("addr",)),
    "-4": (("-4",), ("-4", "addr")),
    "-6": (("-6",), ("-6", "addr")),
}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.backends
def test_text_is_ip_addr(place, backend, form):
    args, ip_args = FORMS[form]
    compare(place, backend, args, ip_args)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.backends
def test_brief_is_ip_br_addr(place, backend, form):
    args, ip_args = FORMS[form]
    compare(place, backend, ("-b", *args), ("-br", *ip_args), brief=True)


def _names(place):
    return [link["ifname"] for link in json.loads(ip_text(place, "-j", "link", "show"))]


@pytest.mark.backends
def test_one_interface_is_ip_addr_show_dev(place, backend):
    cases = []
    for name in _names(place):
        for family in ((), ("-4",), ("-6",)):  # -4, -6: nothing when it has no such address
            cases.append(((*family, name), (*family, "addr", "show", "dev", name), False))
            cases.append(
                (("-b", *family, name), ("-br", *family, "addr", "show", "dev", name), True)
            )
    compare_many(place, backend, cases)


@pytest.mark.backends
def test_altname_finds_its_interface(odd, backend):
    if backend == "getifaddrs":  # which knows no altnames
        r = odd.run(
            [sys.executable, "-m", "netifc", "i0-second"],
            capture_output=True,
            text=True,
            env=dict(os.environ, NETIFC_BACKEND="getifaddrs"),
            cwd="/",
        )
        assert (r.returncode, r.stdout) == (1, "")
        assert r.stderr == "netifc: no such network interface: 'i0-second'\n"
        return
    got = compare(odd, backend, ("i0-second",), ("addr", "show", "dev", "i0-second"))
    assert got.splitlines()[0].split()[1] == "i0:"
    compare(odd, backend, ("-b", "x0-alt"), ("-br", "addr", "show", "dev", "x0-alt"), brief=True)


@pytest.mark.backends
def test_odd_namespace_shows_what_it_was_built_for(odd, backend):
    """The comparisons above can only pass on the odd namespace if netifc
    prints these: they are its reason to exist."""
    text = netifc_run(odd, backend)
    wants = [
        "<BROADCAST,NOARP,ALLMULTI,PROMISC,UP,LOWER_UP>",
        "NO-CARRIER,BROADCAST,MULTICAST,UP",
        ": d\u00e90: <",
    ]
    if backend != "getifaddrs":  # which knows no altnames or address flags
        wants += [
            "    altname i0-first",
            "    altname i0-second",
            "inet 10.1.0.2/24 scope global secondary",
            "inet 10.3.0.1/24 scope global noprefixroute",
            "inet 10.5.0.1/24 scope global dynamic",
            "inet 239.1.1.1/32 scope global autojoin",
            "inet6 2001:db8:a::1/64 scope global nodad noprefixroute",
            "inet6 2001:db8:b::1/64 scope global nodad mngtmpaddr",
            "inet6 2001:db8:c::1/64 scope global nodad home",
            "inet6 2001:db8:d::1/64 scope global deprecated dynamic",
        ]
    for want in wants:
        assert want in text, want


def test_version(host):
    import netifc

    r = subprocess.run(
        [sys.executable, "-m", "netifc", "--version"], capture_output=True, text=True, cwd="/"
    )
    assert (r.returncode, r.stdout, r.stderr) == (0, f"netifc {netifc.__version__}\n", "")


def test_empty_name_is_a_usage_error(host):
    r = subprocess.run(
        [sys.executable, "-m", "netifc", ""], capture_output=True, text=True, cwd="/"
    )
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("usage: netifc ")
    assert (
        r.stderr.splitlines()[-1]
        == "netifc: error: argument IFNAME: an interface name cannot be empty"
    )
