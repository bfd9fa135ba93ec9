"""What the build of the extension must not change: an abi3 build (the
Limited API, which hides a type's tp_name) names types in its messages as a
full-API build does."""

import sys

import pytest

import netifc


class Odd:
    """A class of this module, for the messages that name an argument's type."""


CALLS = [
    (netifc.interface_by_index, "interface index must be int"),
    (netifc.interface_by_name, "interface name must be str"),
]


@pytest.mark.parametrize("call, text", CALLS)
@pytest.mark.parametrize("bad", [1.5, None, b"1", [1], {}])
def test_type_error_names_a_builtin_type(call, text, bad):
    with pytest.raises(TypeError) as e:
        call(bad)
    assert str(e.value) == f"{text}, not {type(bad).__name__}"


@pytest.mark.parametrize("call, text", CALLS)
def test_type_error_names_a_class(call, text):
    with pytest.raises(TypeError) as e:
        call(Odd())
    # its __name__, as the Python layer writes it (Snapshot, the lookups of
    # Live), whichever API the extension is built with
    assert str(e.value) == f"{text}, not Odd"


@pytest.mark.parametrize("bad", [Odd(), 1.5, None])
def test_type_error_is_one_message_from_c_and_python(bad):
    """The module's lookups (C), a Snapshot's (Python) and a live table's
    (C) say the same for the same mistake."""
    snap = netifc.snapshot()
    calls = [netifc.interface_by_index, snap.by_index]
    names = [netifc.interface_by_name, snap.by_name]
    if hasattr(netifc, "live") and netifc.backend == "netlink":
        lv = netifc.live()
        calls.append(lv.by_index)
        names.append(lv.by_name)
    for group in (calls, names):
        said = set()
        for call in group:
            with pytest.raises(TypeError) as e:
                call(bad)
            said.add(str(e.value))
        assert len(said) == 1, said


@pytest.mark.parametrize(
    "tp, name, use",
    [
        ("Interface", "netifc.Interface", "netifc's functions"),
        ("Addr", "netifc.Addr", "netifc's functions"),
        ("Route", "netifc.Route", "netifc's functions"),
        ("NextHop", "netifc.NextHop", "netifc's functions"),
        ("Counters", "netifc.Counters", "netifc.counters()"),
    ],
)
def test_records_cannot_be_made_and_say_so(tp, name, use):
    if not hasattr(netifc, tp):
        pytest.skip(f"no netifc.{tp} on this platform")
    with pytest.raises(TypeError) as e:
        getattr(netifc, tp)()
    assert str(e.value) == f"cannot create '{name}' instances; use {use}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="live tables are Linux's")
@pytest.mark.parametrize(
    "lookup, bad, text",
    [
        ("by_index", 1.5, "interface index must be int, not float"),
        ("by_index", Odd(), "interface index must be int, not "),
        ("by_name", b"lo", "interface name must be str, not bytes"),
    ],
)
def test_live_lookups_name_the_type(lookup, bad, text):
    lv = netifc.live()
    try:
        with pytest.raises(TypeError) as e:
            getattr(lv, lookup)(bad)
    finally:
        lv.close()
    if isinstance(bad, Odd):
        assert str(e.value) in (text + "Odd", text + f"{__name__}.Odd")
    else:
        assert str(e.value) == text
