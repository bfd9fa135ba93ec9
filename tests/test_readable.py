"""Records a person can read: MACs as text in reprs, str() of an Interface
and of a Route as the line ip prints for it, a short Counters repr.

The truth is iproute2: ip -j link for the words and addresses, ip route show
table all for the route lines, in the lab namespaces the other tests build.
"""

import pytest

import netifc
from conftest import require_namespaces
from nslab import build_lab
from test_routes import build_routes_lab, ip_text


@pytest.fixture(scope="module")
def lab():
    require_namespaces()
    ns = build_lab()
    yield ns
    ns.delete()


def _brd_word(link):
    return "peer" if "POINTOPOINT" in link["flags"] else "brd"


def test_interface_str_and_repr_as_ip_shows_them(lab):
    with netifc.NetNS(f"/run/netns/{lab.name}") as ns:
        ours = {i.index: i for i in ns.interfaces()}
    links = lab.ipj("link", "show")
    assert sorted(ours) == sorted(l["ifindex"] for l in links)
    macs = 0
    for l in links:
        i = ours[l["ifindex"]]
        text = str(i)
        assert "\n" not in text
        # ip adds M-DOWN (a veth's peer is down), which netifc's records
        # do not carry (docs/cli.rst).
        flags = [f for f in l["flags"] if f != "M-DOWN"]
        head = f"{l['ifindex']}: {l['ifname']}: <{','.join(flags)}> mtu {l['mtu']} state {l['operstate']}"
        assert text.startswith(head + " link/" + l["link_type"]), (text, head)
        if "address" in l:
            assert f" {l['address']} " in f"{text} "
            assert text.endswith(f" {_brd_word(l)} {l['broadcast']}")
        mac = l.get("address", "")
        if mac and any(int(x, 16) for x in mac.split(":")):
            assert f"hardware_addr='{mac}'," in repr(i)
            assert f"hardware_broadcast='{l['broadcast']}'," in repr(i)
            macs += 1
        else:  # none, or all zero (lo's): the same quoted text, empty
            assert "hardware_addr=''," in repr(i), repr(i)
        assert "=b'" not in repr(i)  # one form: never bytes
    assert macs >= 8


def test_route_str_is_ip_route_line():
    require_namespaces()
    ns = build_routes_lab()
    try:
        with netifc.NetNS(f"/run/netns/{ns.name}") as n:
            routes = n.routes(table="all")
        theirs = ip_text(ns, "route", "show", "table", "all") + ip_text(
            ns, "-6", "route", "show", "table", "all"
        )
        single = [r for r in routes if not r.nexthops]
        assert len(single) >= 5
        lines = theirs.splitlines()
        for r in single:
            assert str(r) in lines, (str(r), lines)
        for r in (r for r in routes if r.nexthops):
            first, *hops = str(r).split(" nexthop ")
            assert first in lines
            assert len(hops) == len(r.nexthops)
    finally:
        ns.delete()


def test_counters_repr_is_short_and_as_dict_complete():
    c = netifc.counters()[0]
    text = repr(c)
    assert text.startswith(
        f"Counters(index={c.index}, ifname={c.ifname!r}, rx_bytes={c.rx_bytes}, "
    )
    assert text.count("=") == 10
    assert len(c.as_dict()) == 25
