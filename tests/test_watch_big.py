"""A notification larger than the watch's first buffer: a link with 300
altnames of 127 bytes is told in one RTM_NEWLINK of about 40 KB. The watch
peeks each datagram's size and reads it whole, so the change is told as a
LinkChanged (never a Resync: nothing was dropped), and the tables hold
every altname iproute2 lists."""

import pytest

import netifc
from conftest import own_netns
from nslab import watch_until

TIMEOUT = 10  # seconds any one wait may take before the test fails
ALTNAMES = 300
FIRST_BUFFER = 32768  # the watch's buffer before a datagram outgrows it (csrc/netlink/watch.c)


pytestmark = pytest.mark.usefixtures("netlink_backend")


@pytest.fixture
def ns():
    with own_netns("wbig") as n:
        yield n


def altname(i):
    """The i-th altname: 127 bytes, the most the kernel takes (ALTIFNAMSIZ 128 with its NUL)."""
    return f"alt{i:04d}".ljust(127, "x")


def ip_altnames(ns, name):
    (link,) = ns.ipj("link", "show", "dev", name)
    return set(link.get("altnames", ()))


def told_size(names):
    """A lower bound of the RTM_NEWLINK that tells them: one IFLA_ALT_IFNAME
    each (4-byte header, the name and its NUL, padded to 4)."""
    return sum(4 + (len(n) + 1 + 3) // 4 * 4 for n in names)


def changes_of(w, name, want, what):
    """The events w tells until a LinkChanged of link `name` whose altnames are
    `want` (or a Resync, which fails the test); fails at the deadline."""

    def done(seen):
        return any(
            isinstance(e, netifc.Resync)
            or (
                isinstance(e, netifc.LinkChanged)
                and e.new.name == name
                and set(e.new.altnames) == want
            )
            for e in seen
        )

    seen = []
    watch_until(
        w,
        lambda new: seen.extend(new) or done(seen),
        lambda: f"{what}: told {[type(e).__name__ for e in seen]}",
        TIMEOUT,
    )
    print(f"{what}: told {[type(e).__name__ for e in seen]}")
    assert not [e for e in seen if isinstance(e, netifc.Resync)], f"{what}: a Resync"
    (change,) = [e for e in seen if isinstance(e, netifc.LinkChanged) and e.new.name == name]
    return change


def test_a_40kb_link_notification_is_a_link_change(ns):
    ns.ip("link", "add", "b0", "type", "veth", "peer", "name", "b1")
    ns.ip("link", "set", "b0", "up")  # a link that is down is not told of its altnames
    ns.batch([f"link property add dev b0 altname {altname(i)}" for i in range(ALTNAMES - 1)])
    before = ip_altnames(ns, "b0")
    assert len(before) == ALTNAMES - 1
    with netifc.Watcher() as w, netifc.live() as lv:
        # the dump that made the tables read the big link whole too
        (b0,) = [i for i in w.interfaces if i.name == "b0"]
        assert set(b0.altnames) == before
        assert set(lv.by_name("b0").altnames) == before

        last = altname(ALTNAMES - 1)
        ns.ip("link", "property", "add", "dev", "b0", "altname", last)
        after = ip_altnames(ns, "b0")
        assert after == before | {last}
        print(f"the notification: more than {told_size(after)} bytes")
        assert told_size(after) > FIRST_BUFFER  # the path under test: past the first buffer
        change = changes_of(w, "b0", after, "the 300th altname")
        assert set(change.old.altnames) == before
        assert set(lv.by_name("b0").altnames) == after

        # and one taken away: a change again, the tables as ip has them
        ns.ip("link", "property", "del", "dev", "b0", "altname", altname(0))
        gone = ip_altnames(ns, "b0")
        assert gone == after - {altname(0)}
        change = changes_of(w, "b0", gone, "an altname deleted")
        assert set(change.old.altnames) == after
        assert set(lv.by_name("b0").altnames) == gone
        assert w.poll(0) == []
