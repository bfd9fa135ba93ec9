#!/usr/bin/env bash
# The Windows backend's build checks, then its driver under Wine:
#   - the shared core (addr.c vec.c backend.c windows/iphlpapi.c) by gcc without GNU
#     extensions, -std=c11 -pedantic -Wall -Wextra -Werror;
#   - the same and windows/iphlpapi.c by mingw-w64, -std=c11 -pedantic -Wall -Wextra -Werror;
#   - the binding's files a Windows build has (module.c, record.c, records.c,
#     counters.c) by mingw-w64 against this Python's headers with a Windows
#     pyconfig.h (win-pyconfig/), syntax only;
#   - csrc/check/win_driver.c built with the core and run by wine64: exit
#     status 0 and one JSON object.  tests/test_windows.py compares it with ip.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
csrc=$(dirname "$here")
out=$(mktemp -d)
export WINEPREFIX="$out/prefix" WINEDEBUG=-all
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
server=$(command -v wineserver || echo /usr/lib/wine/wineserver)
trap '"$server" -k 2>/dev/null || true; "$server" -w 2>/dev/null || true; rm -rf "$out"' EXIT
core=("$csrc"/core/addr.c "$csrc"/core/vec.c "$csrc"/core/backend.c "$csrc"/windows/iphlpapi.c)
strict=(-std=c11 -pedantic -Wall -Wextra -Werror -I"$csrc")

gcc "${strict[@]}" -fsyntax-only "${core[@]}"
x86_64-w64-mingw32-gcc "${strict[@]}" -fsyntax-only "${core[@]}"

inc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
cp -r "$inc" "$out/include"
cp "$here/win-pyconfig/pyconfig.h" "$out/include/pyconfig.h"
x86_64-w64-mingw32-gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$out/include" -I"$csrc" \
    "$csrc"/python/module.c "$csrc"/python/record.c "$csrc"/python/records.c "$csrc"/python/counters.c

x86_64-w64-mingw32-gcc "${strict[@]}" -O2 -o "$out/win_driver.exe" "$here/win_driver.c" \
    "${core[@]}" -liphlpapi -lws2_32
timeout -k 10 300 "$wine" "$out/win_driver.exe" > "$out/driver.json" ||
    { echo "win_run: the driver under Wine failed or did not end in 300 s (exit $?)"; exit 1; }
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("wine: %d links, %d addresses, %d groups" % (len(d["links"]), len(d["addrs"]), len(d["groups"])))' \
    "$out/driver.json"
