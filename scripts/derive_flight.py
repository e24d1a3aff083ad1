#!/usr/bin/python3
"""Term (g) for a calibration file that predates its pipelined ping-pong.

  /usr/bin/python3 scripts/derive_flight.py IN.csv OUT.csv

Writes IN with a `flight_s` column added (and `pipelined_s` left empty: not
measured): F = alpha - o, alpha the 8-byte half round trip (first of
`pingpong_s`) and o term (d)'s per-message overhead (`overhead_s`, the slope
of k messages per step over k), kept within [0, alpha]. That is the flight
time `collbench calibrate` measures directly (models/README.md, term (g)) if
a sender spends o per message in separate steps as it does per extra message
in one step. Nothing else changes; OUT is written whole or not at all.
Bad input: one line on stderr, exit 2.
"""
import csv
import os
import sys


def fail(msg):
    print(f"derive_flight.py: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) != 3:
        fail("usage: derive_flight.py IN.csv OUT.csv")
    src, dst = sys.argv[1], sys.argv[2]
    try:
        with open(src, newline="") as f:
            rows = list(csv.DictReader(f))
            fields = list(rows[0].keys()) if rows else []
    except OSError as e:
        fail(f"{src}: {e.strerror}")
    if len(rows) != 1:
        fail(f"{src}: {len(rows)} data rows; a calibration file has exactly one")
    row = rows[0]
    try:
        alpha = float(row.get("pingpong_s", "").split(";")[0])
        o = float(row.get("overhead_s", ""))
    except ValueError:
        fail(f"{src}: needs pingpong_s and overhead_s (terms (a) and (d)) to derive flight_s")
    if alpha <= 0 or o < 0:
        fail(f"{src}: pingpong_s[0] {alpha} or overhead_s {o} out of range")
    row["flight_s"] = repr(min(max(alpha - o, 0.0), alpha))
    row.setdefault("pipelined_s", "")
    for name in ("pipelined_s", "flight_s"):
        if name not in fields:
            fields.append(name)
    tmp = dst + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerow(row)
    os.replace(tmp, dst)
    print(f"wrote {dst}: flight_s {float(row['flight_s']) * 1e6:.3f} us "
          f"(alpha {alpha * 1e6:.3f} us - o {o * 1e6:.3f} us)")


if __name__ == "__main__":
    main()
