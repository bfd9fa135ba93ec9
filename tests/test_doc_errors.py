"""The tables of bad input in docs/rules.rst and docs/interfaces.rst, made
as calls: each row's call raises the class the row names, with a message
holding the row's text, and a TypeError's or ValueError's message names the
argument it refuses. The docs cannot say one thing and the code do another."""

import ast
import builtins
import inspect
import pathlib
import socket
import sys

import pytest

import netifc

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGES = ("rules.rst", "interfaces.rst")
HEADER = ["call", "raises", "its message holds"]


def literal(cell):
    """A cell's text: one ``literal`` (reST takes no escapes inside one)."""
    assert cell.startswith("``") and cell.endswith("``") and cell.count("``") == 2, cell
    return cell[2:-2]


def bad_input_rows(page):
    """(call, raises, message) of each row of each list-table of the page
    whose title starts with "Bad input", header rows left out."""
    lines = (DOCS / page).read_text().splitlines()
    found = []
    for n, line in enumerate(lines):
        if not line.startswith(".. list-table:: Bad input"):
            continue
        rows = []
        for body in lines[n + 1 :]:
            if body and not body.startswith(" "):
                break  # the table ends at the next unindented line
            cell = body.strip()
            if cell.startswith("* - "):
                rows.append([cell[4:]])
            elif cell.startswith("- "):
                rows[-1].append(cell[2:])
        assert rows and rows[0] == HEADER, (page, rows[:1])
        for row in rows[1:]:
            assert len(row) == 3, (page, row)
            found.append(tuple(literal(c) for c in row))
    return found


def exception_class(name):
    """netifc.NoSuchInterface or a builtin exception, by its name in the docs."""
    obj = netifc.NoSuchInterface if name == "netifc.NoSuchInterface" else getattr(builtins, name)
    assert isinstance(obj, type) and issubclass(obj, Exception), name
    return obj


def arguments_given(call, names):
    """The parameter names the call's arguments bind to, by its callee's signature."""
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call), call
    callee = eval(compile(ast.Expression(node.func), "<docs>", "eval"), names)
    args = [eval(compile(ast.Expression(a), "<docs>", "eval"), names) for a in node.args]
    kwargs = {
        k.arg: eval(compile(ast.Expression(k.value), "<docs>", "eval"), names)
        for k in node.keywords
    }
    return set(inspect.signature(callee).bind(*args, **kwargs).arguments)


ROWS = [pytest.param(*row, id=f"{page}:{row[0]}") for page in PAGES for row in bad_input_rows(page)]


def test_each_page_has_its_table():
    """A table renamed or emptied would test nothing: the rows are there."""
    assert len(bad_input_rows("rules.rst")) >= 25
    assert len(bad_input_rows("interfaces.rst")) >= 5


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or netifc.backend != "netlink",
    reason="the tables name routes, NetNS and Watcher: Linux's netlink backend",
)
@pytest.mark.parametrize(("call", "raises", "message"), ROWS)
def test_each_row_is_what_the_call_raises(call, raises, message):
    cls = exception_class(raises)
    with netifc.Watcher() as w:  # the tables' w
        names = {"netifc": netifc, "socket": socket, "w": w}
        with pytest.raises(Exception) as info:
            eval(call, names)  # the docs' example, run as written
        given = arguments_given(call, names)
    assert type(info.value) is cls, (call, type(info.value), info.value)
    text = str(info.value)
    assert message in text, (call, text)
    if cls in (TypeError, ValueError):
        assert any(name in text for name in given), (call, text, given)
