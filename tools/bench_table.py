#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_table.py: turns a `harness bench --json` file into docs/performance.md's speed table
(markdown): SGEMM as % of the vendor library per size, reductions as % of the device copy,
with the command, date, device, driver and toolkit it came from. Reads only the file.
Usage: tools/bench_table.py bench.json [the command that made it]"""
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    command = sys.argv[2] if len(sys.argv) > 2 else "harness bench --json ..."
    rows = doc["rows"]
    sizes = doc["sizes"]
    first = rows[0] if rows else {"device": "?", "driver": "?"}
    print(f"`{command}` on {first['device']}, {doc['date']}; {first['driver']}; "
          f"median of {doc['runs']} after {doc['warmups']} warm-ups.\n")
    vendor = {r["n"]: r for r in rows if r["kind"] == "vendor"}
    print("| kernel | " + " | ".join(str(n) for n in sizes) + " | regs, smem, occupancy |")
    print("| --- |" + " --- |" * (len(sizes) + 1))
    if vendor:
        cells = [f"{vendor[n]['tflops']:.1f} TFLOPS" if n in vendor else "" for n in sizes]
        print(f"| {rows[0]['impl'] if rows[0]['kind'] == 'vendor' else 'vendor'} | " + " | ".join(cells) + " | |")
    names = []
    for r in rows:
        key = (r["impl"], r["backend"], r["device_index"])
        if r["op"] == "sgemm" and r["kind"] == "kernel" and key not in names:
            names.append(key)
    for impl, backend, dev in names:
        cells = []
        for n in sizes:
            hit = [r for r in rows if (r["impl"], r["backend"], r["device_index"]) == (impl, backend, dev)
                   and r["n"] == n and r["op"] == "sgemm"]
            pct = hit[0].get("pct_vendor") if hit else None
            cells.append(f"{pct:.0f}%" if pct is not None else (f"{hit[0]['tflops']:.1f} TFLOPS" if hit else ""))
        one = [r for r in rows if (r["impl"], r["backend"], r["device_index"]) == (impl, backend, dev)][0]
        fig = (f"{one['regs']}, {one['shared_bytes']} B, {100 * one['occupancy']:.0f}%"
               if "regs" in one and one.get("occupancy") is not None else "")
        print(f"| {impl} ({backend}) | " + " | ".join(cells) + f" | {fig} |")
    red = [r for r in rows if r["op"] in ("reduce", "copy")]
    if red:
        print(f"\nReductions at {doc['reduce_n']} floats, % of the device copy:\n")
        print("| kernel | GB/s | % of copy | regs | occupancy |")
        print("| --- | --- | --- | --- | --- |")
        for r in red:
            pct = r.get("pct_copy")
            occ = r.get("occupancy")
            print(f"| {r['impl']} ({r['backend']}) | {r['gbs']:.0f} | {'' if pct is None else f'{pct:.1f}%'} | "
                  f"{r.get('regs', '')} | {'' if occ is None else f'{100 * occ:.0f}%'} |")


if __name__ == "__main__":
    main()
