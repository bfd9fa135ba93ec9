"""python -m netifc: show network interfaces and their addresses, like ``ip addr``."""
import argparse
import os
import socket
import sys

import netifc


def _parser():
    p = argparse.ArgumentParser(
        prog="netifc",
        description="Show network interfaces with their addresses (or multicast groups).",
    )
    p.add_argument("ifname", nargs="?", metavar="IFNAME", help="show this interface only")
    form = p.add_mutually_exclusive_group()
    form.add_argument("-b", "--brief", action="store_true", help="one line per interface")
    form.add_argument("-j", "--json", action="store_true", help="JSON (schema in README)")
    fam = p.add_mutually_exclusive_group()
    fam.add_argument("-4", dest="family", action="store_const", const=socket.AF_INET,
                     help="IPv4 addresses only")
    fam.add_argument("-6", dest="family", action="store_const", const=socket.AF_INET6,
                     help="IPv6 addresses only")
    p.add_argument("-m", "--multicast", action="store_true",
                   help="multicast groups instead of addresses")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the output (auto: on a terminal, unless NO_COLOR is set)")
    return p


def _use_color(choice, stream):
    if choice == "auto":
        return stream.isatty() and not os.environ.get("NO_COLOR")
    return choice == "always"


def _gather(args):
    if args.ifname is not None:
        iface = netifc.interface_by_name(args.ifname)
        addrs = iface.multicast_addrs() if args.multicast else iface.addrs()
        return (iface,), addrs
    snap = netifc.multicast_snapshot() if args.multicast else netifc.snapshot()
    return snap.interfaces, snap.addrs


def _write(text):
    """Interface names are bytes: one that is not valid in the locale's encoding
    goes out as the bytes it is (surrogateescape), never as an error."""
    stream = sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if hasattr(stream, "buffer"):
        stream.flush()
        try:
            data = text.encode(encoding, "surrogateescape")
        except UnicodeEncodeError:      # a name the locale's encoding cannot spell
            data = text.encode(encoding, "backslashreplace")
        stream.buffer.write(data)
        stream.buffer.flush()
    else:
        stream.write(text)
        stream.flush()


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        interfaces, addrs = _gather(args)
    except (netifc.NoSuchInterface, ValueError) as e:
        print(f"netifc: {e.args[0] if e.args else e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"netifc: {e.strerror or e}", file=sys.stderr)
        return 1
    if args.family is not None:
        addrs = [a for a in addrs if a.family == args.family]
    if args.json:
        out = netifc.render_json(interfaces, addrs, multicast=args.multicast)
    else:
        render = netifc.render_brief if args.brief else netifc.render_text
        out = render(interfaces, addrs, multicast=args.multicast,
                     color=_use_color(args.color, sys.stdout))
    try:
        _write(out)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
