"""python -m netifc: show network interfaces and their addresses, like ``ip addr``."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import netifc
import netifc.wait
from netifc.namespace import Namespace

# Where the interfaces are read: the caller's namespace (Namespace()), or a
# NetNS (-n NAME): the same calls either way.
_Source = Namespace
_HERE = Namespace()


def _failed(e: Exception) -> int:
    """Say why a call failed (an OSError by its strerror and file); the exit status 1."""
    if isinstance(e, OSError) and e.strerror:
        text = e.strerror if e.filename is None else f"{e.strerror}: {e.filename}"
    else:
        text = e.args[0] if e.args and isinstance(e.args[0], str) else str(e)
    # (the library's messages that already begin with its name say it once)
    print(f"netifc: {text.removeprefix('netifc: ')}", file=sys.stderr)
    return 1


def _add_family_options(p: argparse.ArgumentParser, help: str) -> None:
    """-4 and -6, one or the other, into ``family``; help names the version
    where it has ``{}``."""
    fam = p.add_mutually_exclusive_group()
    fam.add_argument(
        "-4", dest="family", action="store_const", const=socket.AF_INET, help=help.format(4, 4)
    )
    fam.add_argument(
        "-6", dest="family", action="store_const", const=socket.AF_INET6, help=help.format(6, 6)
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="netifc",
        usage="%(prog)s [-h] [-b | -j] [-4 | -6] [-m] [-w] [-s] [-n NAME] [--color WHEN]"
        " [--version] [IFNAME]\n"
        "       %(prog)s [-4 | -6] [-j] [-n NAME] route [show] [--table T]\n"
        "       %(prog)s [-4 | -6] [-j] [-n NAME] route get ADDRESS\n"
        "       %(prog)s wait [-i NAME]... [-4] [-6] [--any] [-o STATE] [--route default]"
        " [--timeout SECS] [-n NAME] [-j]",
        description="Show network interfaces with their addresses (or multicast groups),"
        " like ip addr;\nor the routes, like ip route.",
        epilog="commands:\n"
        "  route [show]         the routes of the main table (--table T: another,"
        " or all),\n"
        "                       like ip route\n"
        "  route get ADDRESS    the route the kernel would take to ADDRESS, like"
        " ip route get\n"
        "  wait                 until the links are online (up with carrier, an"
        " address\n"
        "                       out of DAD with -4/-6, a default route with"
        " --route default)\n"
        "  (netifc route --help, netifc wait --help: their options; an interface"
        " named route: netifc -- route)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "ifname",
        nargs="?",
        metavar="IFNAME",
        help="show this interface only (its name or one of its altnames)",
    )
    form = p.add_mutually_exclusive_group()
    form.add_argument("-b", "--brief", action="store_true", help="one line per interface")
    form.add_argument("-j", "--json", action="store_true", help="JSON (its schema: docs/cli.rst)")
    _add_family_options(p, "IPv{} only: the interfaces with an IPv{} address, and those addresses")
    p.add_argument(
        "-m", "--multicast", action="store_true", help="multicast groups instead of addresses"
    )
    p.add_argument(
        "-w",
        "--watch",
        action="store_true",
        help="print changes as they happen, like ip monitor (Ctrl-C ends it);"
        " with --json, one JSON object per line",
    )
    p.add_argument(
        "-s",
        "--stats",
        action="store_true",
        help="each interface's counters, like ip -s link (with --json: their every counter)",
    )
    p.add_argument(
        "-n",
        "--netns",
        metavar="NAME",
        help="in the network namespace NAME (as ip -n: /run/netns/NAME), or a path"
        " such as /proc/PID/ns/net",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        metavar="WHEN",
        help="colour the output: auto (the default: on a terminal, unless NO_COLOR"
        " is set), always or never",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {netifc.__version__}")
    return p


def _use_color(choice: str, stream: object) -> bool:
    if choice == "auto":
        isatty = getattr(stream, "isatty", None)
        return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")
    return choice == "always"


def _find(name: str, src: _Source = _HERE) -> netifc.Interface:
    """The interface with this name; like ip, an altname finds its interface
    too (the API's interface_by_name() matches the primary name only, as Go)."""
    try:
        return src.interface_by_name(name)
    except netifc.NoSuchInterface:
        for i in src.interfaces():
            if name in i.altnames:
                return i
        raise


def _gather(
    ifname: Optional[str], multicast: bool, src: _Source = _HERE
) -> Tuple[Sequence[netifc.Interface], Sequence[netifc.Addr]]:
    if ifname is not None:
        iface = _find(ifname, src)
        addrs = iface.multicast_addrs() if multicast else iface.addrs()
        return (iface,), addrs
    snap = src.multicast_snapshot() if multicast else src.snapshot()
    return snap.interfaces, snap.addrs


def _print(text: str) -> int:
    """Write the output, and 0: a reader that went away (a closed pipe) ends it
    quietly; any other write error (a full disk: ENOSPC) is said in one line,
    and 1."""
    try:
        _write(text)
    except OSError as e:
        return _write_failed(e)
    return 0


def _write_failed(e: OSError) -> int:
    """0 for a closed pipe, else the error in one line and 1; stdout goes to
    /dev/null either way, so the interpreter's last flush of what is left in
    its buffer fails no more."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if isinstance(e, BrokenPipeError):
        return 0
    print(f"netifc: writing the output: {e.strerror or e}", file=sys.stderr)
    return 1


def _write(text: str) -> None:
    """Interface names are bytes: one that is not valid in the locale's encoding
    goes out as the bytes it is (surrogateescape), never as an error."""
    stream = sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    try:
        data = text.encode(encoding, "surrogateescape")
    except UnicodeEncodeError:  # a name the locale's encoding cannot spell
        data = text.encode(encoding, "backslashreplace")
    buffer.write(data)
    buffer.flush()


def _event_at(event: netifc.Event) -> Tuple[Optional[netifc.Interface], Optional[netifc.Addr]]:
    """The interface, or the address or group, an event is about."""
    if isinstance(event, (netifc.LinkAdded, netifc.LinkRemoved)):
        return event.link, None
    if isinstance(event, netifc.LinkChanged):
        return event.new, None
    if isinstance(event, (netifc.AddrAdded, netifc.AddrRemoved)):
        return None, event.addr
    if isinstance(event, netifc.AddrChanged):
        return None, event.new
    if isinstance(event, (netifc.GroupJoined, netifc.GroupLeft)):
        return None, event.group
    return None, None


def _name_of(index: int, names: Dict[int, str], zone: str, src: _Source = _HERE) -> str:
    """An address's interface name: from the events so far, its zone, the kernel
    (a group can come before its link), or ``if<index>`` as ip prints a gone one."""
    if index not in names:
        try:
            names[index] = zone or src.interface_by_index(index).name
        except (OSError, netifc.NoSuchInterface):
            return f"if{index}"
    return names[index]


def _watch(args: argparse.Namespace, src: _Source) -> int:
    """Print each change as it comes, until Ctrl-C (exit 0)."""
    try:
        watcher = netifc.Watcher(src)
        only = _find(args.ifname, src).index if args.ifname is not None else None
    except (netifc.NoSuchInterface, ValueError, NotImplementedError, OSError) as e:
        return _failed(e)
    names = {i.index: i.name for i in watcher.interfaces}
    color = _use_color(args.color, sys.stdout)
    try:
        with watcher:
            for event in watcher:
                iface, addr = _event_at(event)
                if iface is not None:
                    names[iface.index] = iface.name
                index = iface.index if iface is not None else addr.index if addr else None
                if (only is not None and index not in (None, only)) or (
                    addr is not None and args.family not in (None, addr.family)
                ):
                    continue
                if args.json:
                    out = json.dumps(netifc.render.event_json(event)) + "\n"
                else:
                    name = _name_of(addr.index, names, addr.zone, src) if addr is not None else ""
                    out = netifc.render.render_event(event, name, color=color)
                try:
                    _write(out)
                except OSError as e:  # a closed pipe ends the watch, as Ctrl-C
                    return _write_failed(e)
    except KeyboardInterrupt:
        return 0
    return 0


# ---- -s/--stats: counters, as ip -s link shows them ------------------------------

_STATS_ROWS = (
    (
        "RX:",
        ("bytes", "packets", "errors", "dropped", "missed", "mcast"),
        ("rx_bytes", "rx_packets", "rx_errors", "rx_dropped", "rx_missed_errors", "multicast"),
        "rx_compressed",
    ),
    (
        "TX:",
        ("bytes", "packets", "errors", "dropped", "carrier", "collsns"),
        ("tx_bytes", "tx_packets", "tx_errors", "tx_dropped", "tx_carrier_errors", "collisions"),
        "tx_compressed",
    ),
)


def _stats_lines(c: netifc.Counters) -> List[str]:
    """ip's two rows of counters, each under its header; the columns as wide
    as their widest number, and at least ip's widths."""
    values = {row[0]: [getattr(c, f) or 0 for f in row[2]] for row in _STATS_ROWS}
    widths = [10, 7, 6, 7, 7, 7]
    for row in values.values():
        widths = [max(w, len(str(v))) for w, v in zip(widths, row)]
    lines = []
    for label, heads, _, compressed in _STATS_ROWS:
        extra = getattr(c, compressed) or 0
        head = label + heads[0].rjust(widths[0] - len(label))
        head += "".join(" " + h.rjust(w) for h, w in zip(heads[1:], widths[1:]))
        nums = " ".join(str(v).rjust(w) for v, w in zip(values[label], widths))
        lines.append("    " + head + (" compressed" if extra else ""))
        lines.append("    " + nums + (f" {extra:>10}" if extra else ""))
    return lines


def _stats(args: argparse.Namespace, src: _Source = _HERE) -> int:
    try:
        interfaces: Sequence[netifc.Interface] = (
            (_find(args.ifname, src),) if args.ifname is not None else src.interfaces()
        )
        counters = {
            c.index: c
            for c in ([interfaces[0].counters()] if args.ifname is not None else src.counters())
        }
    except (netifc.NoSuchInterface, ValueError, OSError) as e:
        return _failed(e)
    shown = [i for i in interfaces if i.index in counters]  # none that vanished between
    if args.json:
        out = (
            json.dumps(
                [
                    {"index": i.index, "name": i.name, "counters": counters[i.index].as_dict()}
                    for i in shown
                ]
            )
            + "\n"
        )
    else:
        color = _use_color(args.color, sys.stdout)
        lines: List[str] = []
        for i in shown:
            block = netifc.render_text([i], [], color=color).splitlines()
            lines += block[:2] + _stats_lines(counters[i.index]) + block[2:]
        out = "".join(line + "\n" for line in lines)
    return _print(out)


# ---- netifc route: the routing tables, like ip route ---------------------------


def _route_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="netifc route",
        usage="%(prog)s [-4 | -6] [-j] [-n NAME] [show] [--table T | table T]\n"
        "       %(prog)s [-4 | -6] [-j] [-n NAME] get ADDRESS",
        description="Show routes like ip route: IPv4 routes (IPv6 with -6) of the main"
        " table or of the one given; --table all shows both families."
        " get ADDRESS: the route the kernel would take to ADDRESS (an IPv6"
        " zone, fe80::1%eth0, names the interface), like ip route get."
        " The options go before or after route.",
    )
    p.add_argument(
        "command", nargs="*", metavar="show | get ADDRESS", help="show (the default) or get ADDRESS"
    )
    _add_family_options(p, "IPv{} routes only")
    p.add_argument(
        "--table",
        "-t",
        metavar="T",
        help="a table number or name (main, local, default, an rt_tables"
        " name), or all (default: main)",
    )
    p.add_argument(
        "-j",
        "--json",
        action="store_true",
        help="JSON, in the shape of ip -j route (ip -j route get)",
    )
    p.add_argument(
        "-n", "--netns", metavar="NAME", help="in the network namespace NAME (as ip -n), or a path"
    )
    return p


def _refuse_table_out_of_range(parser: argparse.ArgumentParser, argv: List[str]) -> None:
    """A usage error for a table number out of range (--table -5, -t 0,
    table 4294967296, --table=-5), in the library's words for it: argparse
    would take a -5 for an option, as it does -4 and -6, and say only that
    --table expected one argument."""
    i = 0
    while i < len(argv):
        word, value = argv[i], None
        if word in ("-n", "--netns"):
            i += 2
            continue
        if word in ("--table", "-t", "table") and i + 1 < len(argv):
            value = argv[i + 1]
        elif word.startswith("--table="):
            value = word[len("--table=") :]
        digits = value[1:] if value is not None and value[:1] == "-" else value
        if value and digits and digits.isdecimal() and not 1 <= int(value) <= 0xFFFFFFFF:
            parser.error(
                f"argument --table/-t: routing table {value} out of range (1 to 4294967295)"
            )
        i += 1


def _route_args(argv: List[str]) -> argparse.Namespace:
    """The route command's arguments; a usage error (exit 2) for words that
    are neither show [table T] nor get ADDRESS."""
    parser = _route_parser()
    _refuse_table_out_of_range(parser, argv)
    args = parser.parse_intermixed_args(argv)
    words = list(args.command)
    if words[:1] in (["show"], ["list"]):
        words = words[1:]
    if words[:1] == ["get"]:
        if len(words) != 2:
            parser.error("get takes one address: netifc route get ADDRESS")
        if args.table is not None:
            parser.error("get: the kernel chooses the table (no --table)")
        args.get = words[1]
        return args
    args.get = None
    if words[:1] == ["table"] and len(words) == 2:
        if args.table is not None:
            parser.error("the table is given twice")
        args.table = words[1]
    elif words:
        parser.error(f"unknown command {' '.join(words)!r} (show [table T], or get ADDRESS)")
    if args.table is None:
        args.table = "main"
    return args


def _route_main(argv: List[str]) -> int:
    from . import render_routes

    parser = _route_parser()
    args = _route_args(argv)
    family = args.family
    if args.get is not None:
        want = {socket.AF_INET: "an IPv4", socket.AF_INET6: "an IPv6"}.get(family)
        is6 = ":" in args.get
        if want is not None and is6 != (family == socket.AF_INET6):
            parser.error(
                f"get: -{4 if family == socket.AF_INET else 6} needs {want}"
                f" address, not {args.get!r}"
            )
    elif family is None and args.table != "all":
        family = socket.AF_INET  # as ip route: IPv4 unless all tables are shown
    src: Optional[netifc.NetNS] = None
    try:
        src = netifc.NetNS(args.netns) if args.netns is not None else None
        if args.get is not None:
            found = (src or _HERE).route_get(args.get)
        else:
            routes = (src or _HERE).routes(family, args.table)
    except (TypeError, ValueError, NotImplementedError, OSError) as e:
        return _failed(e)
    finally:
        if src is not None:
            src.close()
    if args.get is not None:
        uid = os.getuid()
        if args.json:
            out = json.dumps([render_routes.route_get_json(found, uid)]) + "\n"
        else:
            out = render_routes.route_get_line(found, uid)
        return _print(out)
    show_table = args.table == "all"
    if args.json:
        out = json.dumps(render_routes.routes_json(routes, show_table)) + "\n"
    else:
        out = render_routes.render_routes(routes, show_table)
    return _print(out)


# ---- netifc wait: until the network is there, like systemd-networkd-wait-online ----


def _wait_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="netifc wait",
        usage="%(prog)s [-i NAME]... [-4] [-6] [--any] [-o STATE] [--route default]"
        " [--timeout SECS] [-n NAME] [-j]",
        description="Wait until the links are online, like systemd-networkd-wait-online:"
        " each link named by -i (without -i: any link but loopback) up with carrier"
        " (-o STATE: in that operational state instead), with a usable address of"
        " each family given by -4 and -6 (out of DAD: a socket can bind it), and with"
        " --route default a default route (of each family given, else of either)."
        " Woken by the kernel's notifications, no polling. Exit status 0 when met;"
        " 1 on a timeout, saying what was missing; 130 on Ctrl-C.",
    )
    p.add_argument(
        "-i",
        "--interface",
        action="append",
        metavar="NAME",
        default=[],
        help="wait for this link (repeatable: for each of them)",
    )
    p.add_argument("-4", "--ipv4", action="store_true", help="a usable IPv4 address on the link")
    p.add_argument(
        "-6", "--ipv6", action="store_true", help="a usable IPv6 address on the link (out of DAD)"
    )
    p.add_argument("--any", action="store_true", help="any one of the links given by -i suffices")
    p.add_argument(
        "-o",
        "--operational-state",
        metavar="STATE",
        type=str.lower,
        choices=netifc.wait.OPERSTATES,
        help="the link's operational state, as ip shows it ("
        + ", ".join(netifc.wait.OPERSTATES)
        + "), instead of up with carrier",
    )
    p.add_argument(
        "--route",
        choices=("default",),
        help="default: also a default route through a gateway (main table)",
    )
    p.add_argument(
        "--timeout",
        metavar="SECS",
        type=float,
        default=120.0,
        help="give up after SECS seconds (default 120; 0 or inf: no limit, as"
        " systemd-networkd-wait-online's 0 -- where Python's timeout=0 checks once)",
    )
    p.add_argument(
        "-n", "--netns", metavar="NAME", help="in the network namespace NAME (as ip -n), or a path"
    )
    p.add_argument(
        "-j", "--json", action="store_true", help="print what was met as JSON (links, gateways)"
    )
    return p


def _wait_condition(args: argparse.Namespace) -> netifc.wait._Condition:
    from .wait import _All, _DefaultRoute, _Online

    families = [f for f, on in ((socket.AF_INET, args.ipv4), (socket.AF_INET6, args.ipv6)) if on]
    names: List[Optional[str]] = list(args.interface) or [None]
    links: netifc.wait._Condition = _All(
        [_Online(n, args.operational_state, families) for n in names], any_one=args.any
    )
    if args.route is None:
        return _All([links])
    wanted: List[Optional[int]] = [*families] or [None]
    routes = [_DefaultRoute(f, None) for f in wanted]
    return _All([links, _All(routes)])


def _met_json(met: Tuple[object, ...]) -> Dict[str, object]:
    """What was met: the links with the addresses found, and the gateways."""
    links: List[object] = []
    gateways: List[object] = []

    def walk(item: object) -> None:
        if isinstance(item, netifc.Gateway):
            gateways.append(
                {
                    "family": "inet" if item.route.family == socket.AF_INET else "inet6",
                    "gateway": item.gateway,
                    "ifname": item.ifname,
                    "index": item.index,
                    "metric": item.metric,
                }
            )
        elif isinstance(item, tuple) and item and isinstance(item[0], netifc.Interface):
            links.extend(netifc.to_json([item[0]], item[1]))
        elif isinstance(item, tuple):
            for each in item:
                walk(each)

    walk(met)
    return {"links": links, "gateways": gateways}


def _negative_timeout_joined(argv: List[str]) -> List[str]:
    """--timeout -1 as --timeout=-1: argparse takes a word like -1 for an
    option here (-4 and -6 are options) and would say only that --timeout
    expected one argument, where the range check below says what is wrong."""
    out = list(argv)
    for i, word in enumerate(out[:-1]):
        if word == "--":
            break
        if word == "--timeout" and out[i + 1][:1] == "-":
            try:
                float(out[i + 1])
            except ValueError:
                continue
            out[i : i + 2] = [f"--timeout={out[i + 1]}"]
            break
    return out


def _wait_main(argv: List[str]) -> int:
    from .wait import _link_arg, _run
    from .watch import timeout_seconds

    parser = _wait_parser()
    args = parser.parse_args(_negative_timeout_joined(argv))
    for name in args.interface:
        try:
            _link_arg("netifc wait", name)
        except ValueError:
            parser.error(
                f"argument -i/--interface: {name!r} is no interface name (1 to 15 bytes, no NUL)"
            )
    try:
        seconds = timeout_seconds(args.timeout, "netifc wait")
    except ValueError:
        parser.error(f"argument --timeout: must be 0 or more seconds, not {args.timeout:g}")
    if args.any and not args.interface:
        parser.error("argument --any: with -i (without -i, any link already suffices)")
    timeout = None if seconds == 0 else seconds  # 0: no limit, as systemd's
    src: Optional[netifc.NetNS] = None
    try:
        src = netifc.NetNS(args.netns) if args.netns is not None else None
        met = _run("netifc wait", _wait_condition(args), timeout, src)
    except KeyboardInterrupt:
        return 130
    except TimeoutError as e:
        print(e, file=sys.stderr)
        return 1
    except (TypeError, ValueError, NotImplementedError, OSError) as e:
        return _failed(e)
    finally:
        if src is not None:
            src.close()
    if not args.json:
        return 0
    assert isinstance(met, tuple)
    return _print(json.dumps(_met_json(met)) + "\n")


# Options of the top-level command that route takes too, when given before it
# (netifc -4 -n NAME route): the ones that take a value, and the others.
_ROUTE_VALUED = ("-n", "--netns")
_ROUTE_FLAGS = ("-4", "-6", "-j", "--json")


def _split_route(argv: List[str], command: str = "route") -> Optional[Tuple[List[str], List[str]]]:
    """(options before route, words after it) when argv's first word that is
    no option nor an option's value is "route" (or command); None otherwise
    ("--" ends the options: netifc -- route shows an interface named route)."""
    valued = _ROUTE_VALUED + ("--color",)
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return None
        if word in valued:
            i += 2
            continue
        if word.startswith("-") and word != "-":
            i += 1
            continue
        return (argv[:i], argv[i + 1 :]) if word == command else None
    return None


def _route_options(before: List[str]) -> List[str]:
    """The options given before route, as route's own; SystemExit(2) for any
    route cannot take."""
    out: List[str] = []
    i = 0
    while i < len(before):
        word = before[i]
        if word in _ROUTE_VALUED:
            out += before[i : i + 2]
            i += 2
            continue
        if word.startswith("--netns=") or word in _ROUTE_FLAGS:
            out.append(word)
        elif (
            len(word) > 2
            and word[0] == "-"
            and word[1] != "-"
            and all(f"-{c}" in _ROUTE_FLAGS for c in word[1:])
        ):
            out += [f"-{c}" for c in word[1:]]  # -4j
        else:
            _parser().error(f"argument {word}: not with route (route takes -4, -6, -j and -n NAME)")
        i += 1
    return out


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit status (0, 1 on a failure, and
    2 through SystemExit on a usage error)."""
    argv = sys.argv[1:] if argv is None else argv
    split = _split_route(argv)
    if split is not None:  # netifc [OPTIONS] route [WORDS AND OPTIONS]
        before, after = split
        return _route_main(_route_options(before) + after)
    split = _split_route(argv, "wait")
    if split is not None:  # netifc [-n NAME] [-j] wait [OPTIONS]: wait takes them all
        before, after = split
        return _wait_main(before + after)
    parser = _parser()
    args = parser.parse_args(argv)
    if args.ifname == "":
        parser.error("argument IFNAME: an interface name cannot be empty")
    if args.stats and (args.brief or args.multicast or args.family is not None):
        parser.error("argument -s/--stats: not with -b, -m, -4 or -6")
    if args.watch and (args.stats or args.brief or args.multicast):
        parser.error(
            "argument -w/--watch: not with -s, -b or -m (it prints each change"
            " as ip monitor does; -4, -6, -j, -n and IFNAME narrow or shape it)"
        )
    src: _Source = _HERE
    if args.netns is not None:
        try:
            src = netifc.NetNS(args.netns)
        except (ValueError, NotImplementedError, OSError) as e:
            return _failed(e)
    try:
        return _show(args, src)
    finally:
        if isinstance(src, netifc.NetNS):
            src.close()


def _show(args: argparse.Namespace, src: _Source) -> int:
    if args.watch:
        return _watch(args, src)
    if args.stats:
        return _stats(args, src)
    try:
        interfaces, addrs = _gather(args.ifname, args.multicast, src)
    except (netifc.NoSuchInterface, ValueError, OSError) as e:
        return _failed(e)
    if args.json:
        out = netifc.render_json(interfaces, addrs, multicast=args.multicast, family=args.family)
    else:
        render = netifc.render_brief if args.brief else netifc.render_text
        out = render(
            interfaces,
            addrs,
            multicast=args.multicast,
            family=args.family,
            color=_use_color(args.color, sys.stdout),
        )
    return _print(out)


if __name__ == "__main__":
    sys.exit(main())
