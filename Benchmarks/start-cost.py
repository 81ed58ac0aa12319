#!/usr/bin/env python3
"""Process start of `edge scan` beside zbarimg's, in instructions (issue #32 item 3, SCN-12).

    python3 Benchmarks/start-cost.py [--edge BIN] [--runs N] [--wall-runs N] [--images FILE...]

Wall time on a shared machine swings by tens of percent; instruction counts (valgrind's
callgrind, Ir) do not, so this prints where each process spends them, split at main():

  before main  dynamic loader (relocations: symbol lookups and the relative ones; loading),
               the executable's static initialisers (C++ ones of the Swift runtime and
               Foundation, Swift image registration)
  main         argument parsing, configuration, image loading, decoding, printing, exit
  inside that  the Swift runtime's conformance scans (swift_conformsToProtocol, linear in the
               binary's conformance records: every module linked in makes each one dearer) and
               dladdr (linear in the executable's exported symbols)

then LD_DEBUG=statistics (relocation counts, loader cycles), minor page faults and a pinned
(`taskset -c 1`) wall-time median for each command, and the ratios edge/zbarimg. Default edge:
.build/release/edge as Benchmarks/run.py builds it (release, --static-swift-stdlib): the front,
which decodes still images itself, with edge-agent beside it, whose `--version` row is the start
every other command pays after the front's exec (Sources/edge/EdgeFront.swift). Needs
valgrind and zbarimg. Valgrind cannot read the DWARF of a binary this large, so it runs a copy
with the debug sections stripped (the symbols stay).
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ("samples/po-code128.png", "samples/linking-code.png")


def annotate(path):
    """Inclusive Ir by function name from a callgrind output file."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    costs, total = {}, None
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if not m:
            continue
        ir = int(m.group(1).replace(",", ""))
        if m.group(2).startswith("PROGRAM TOTALS"):
            total = ir
        else:
            costs.setdefault(m.group(2), ir)
    return total, costs


def find(costs, *patterns):
    """Largest inclusive cost of a function whose name matches any pattern (0 when none)."""
    return max((ir for name, ir in costs.items() if any(re.search(p, name) for p in patterns)), default=0)


def callgrind(cmd, tmp):
    out = Path(tmp) / f"cg.{os.getpid()}.{time.perf_counter_ns()}"
    p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd,
                       capture_output=True, text=True)
    if not out.exists():
        sys.exit(f"valgrind failed on {' '.join(cmd)}:\n{p.stderr[-2000:]}")
    total, costs = annotate(str(out))
    out.unlink()
    main = find(costs, r"libc_start_call_main\.h:\(below main\)")
    libc_start = find(costs, r"__libc_start_main")
    return dict(total=total, loader=find(costs, r"rtld\.c:_dl_start \["), relocation=find(costs, r":_dl_relocate_object \["),
                initialisers=libc_start - main, main=main, before_main=total - main,
                conformance=find(costs, r"swift_conformsToProtocolMaybeInstantiateSuperclasses\(.*\) \["),
                dladdr=find(costs, r"dl-addr\.c:_dl_addr \["))


def loader_statistics(cmd):
    err = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, LD_DEBUG="statistics")).stderr
    def num(label):
        m = re.search(rf"{label}:\s+([\d,]+)", err)
        return int(m.group(1).replace(",", "")) if m else None
    return dict(relocations=num("number of relocations"), relative=num("number of relative relocations"),
                loader_cycles=num("total startup time in dynamic loader"), relocation_cycles=num("time needed for relocation"))


def wall(cmds, runs):
    """Median wall ms and minor faults per command, pinned to CPU 1, the commands alternating."""
    pin = ["taskset", "-c", "1"] if shutil.which("taskset") else []
    samples = [[] for _ in cmds]
    faults = [0 for _ in cmds]
    for cmd in cmds:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)    # page cache
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            t0 = time.perf_counter_ns()
            p = subprocess.Popen(pin + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, usage = os.wait4(p.pid, 0)
            samples[i].append((time.perf_counter_ns() - t0) / 1e6)
            faults[i] = usage.ru_minflt
    return [(statistics.median(s), f) for s, f in zip(samples, faults)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edge", default=str(ROOT / ".build" / "release" / "edge"), help="edge binary (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=1, help="callgrind runs per command (Ir barely moves; default 1)")
    ap.add_argument("--wall-runs", type=int, default=30, help="wall-time runs per command, 0 to skip (default 30)")
    ap.add_argument("--images", nargs="+", default=list(IMAGES), help="images (default: the two of run.py section 3)")
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_annotate", "zbarimg"):
        if not shutil.which(tool):
            sys.exit(f"not found: {tool} (Debian: apt-get install valgrind zbar-tools)")
    edge = Path(args.edge)
    agent = edge.parent / "edge-agent"
    for binary, product in ((edge, "edge"), (agent, "edge-agent")):
        if not binary.exists():
            sys.exit(f"{binary} does not exist: build it (swift build -c release --static-swift-stdlib --product {product}) or give --edge")
    # The front decodes in its own process only with no configuration file to check; with one it
    # execs edge-agent, which callgrind does not follow, and the figures would be the front's alone.
    os.environ.pop("EDGE_CONFIG", None)
    if os.path.exists("/etc/edge/edge.json"):
        sys.exit("/etc/edge/edge.json exists: `edge scan` would check it in edge-agent; measure where there is none")
    with tempfile.TemporaryDirectory() as tmp:
        stripped, stripped_agent = Path(tmp) / "edge", Path(tmp) / "edge-agent"
        for source, target in ((edge, stripped), (agent, stripped_agent)):
            subprocess.run(["strip", "--strip-debug", "-o", str(target), str(source)], check=True)
            print(f"{source.name}: {source} ({source.stat().st_size / 1e6:.0f} MB, {target.stat().st_size / 1e6:.0f} MB without debug sections)")
        rows = []
        # `edge-agent --version`: the start every other command pays (after the front's exec).
        for label, cmd, real in [("edge-agent --version", [str(stripped_agent), "--version"], [str(agent), "--version"])] + [
                row for image in args.images for row in (
                    (f"edge scan {Path(image).name}", [str(stripped), "scan", "--image", str(ROOT / image)],
                     [str(edge), "scan", "--image", str(ROOT / image)]),
                    (f"zbarimg {Path(image).name}", ["zbarimg", "-q", str(ROOT / image)], ["zbarimg", "-q", str(ROOT / image)]))]:
            runs = [callgrind(cmd, tmp) for _ in range(args.runs)]
            ir = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            ir["spread"] = max(r["total"] for r in runs) - min(r["total"] for r in runs)
            rows.append(dict(label=label, cmd=real, ir=ir, ld=loader_statistics(real)))
        if args.wall_runs:
            for row, (ms, faults) in zip(rows, wall([r["cmd"] for r in rows], args.wall_runs)):
                row.update(wall_ms=ms, faults=faults)

    m = lambda x: f"{x / 1e6:.2f}"
    print("\nIr in millions (callgrind). before main = loader + initialisers; conformance scans and dladdr are inside the others.")
    print(f"{'command':<26}{'total':>7}{'before':>8}{'loader':>8}{'reloc':>7}{'inits':>7}{'main':>7}{'conf.':>7}{'dladdr':>7}"
          f"{'relocs':>8}{'relative':>9}{'ld cyc M':>9}{'faults':>7}{'wall ms':>9}")
    for r in rows:
        i, ld = r["ir"], r["ld"]
        print(f"{r['label']:<26}{m(i['total']):>7}{m(i['before_main']):>8}{m(i['loader']):>8}{m(i['relocation']):>7}"
              f"{m(i['initialisers']):>7}{m(i['main']):>7}{m(i['conformance']):>7}{m(i['dladdr']):>7}"
              f"{ld['relocations'] or '-':>8}{ld['relative'] or '-':>9}{(ld['loader_cycles'] or 0) / 1e6:>9.2f}"
              f"{r.get('faults', '-'):>7}{r['wall_ms'] if 'wall_ms' in r else float('nan'):>9.2f}")
    print()
    for image in args.images:
        e = next(r for r in rows if r["label"] == f"edge scan {Path(image).name}")
        z = next(r for r in rows if r["label"] == f"zbarimg {Path(image).name}")
        wall_ratio = f", wall {e['wall_ms'] / z['wall_ms']:.2f}" if "wall_ms" in e else ""
        print(f"{Path(image).name}: edge/zbarimg Ir {e['ir']['total'] / z['ir']['total']:.2f}{wall_ratio}"
              + (f" (callgrind spread over {args.runs} runs: edge {e['ir']['spread']:,}, zbarimg {z['ir']['spread']:,} Ir)" if args.runs > 1 else ""))


if __name__ == "__main__":
    main()
