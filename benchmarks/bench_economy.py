"""Output economy: token counting throughput, sanitize() latency with a budget, memory.

    python benchmarks/bench_economy.py            # writes benchmarks/results/economy.json
    python benchmarks/bench_economy.py --quick    # fewer repetitions

Measures, on this machine:

- exact token counting throughput (MB/s, tokens/s) on JSON and prose;
- ``sanitize()`` of typical 4 KB JSON results, all stages on (p50, p90, per-stage p50, tokens of the
  rendering): an issue with no policy table (every string external, quoted as one block; it must not
  load tiktoken: the byte-length shortcut decides), a helpdesk ticket under ``examples/policy.toml``
  (two fields external, per-field blocks, 2,000-token budget), the issue under that policy file
  (no table for the tool), and a list of many short fields with no policy (it must not be cut);
- ``sanitize(max_tokens=2000)`` on results of 1 KB, 100 KB, 1 MB and 10 MB, JSON and text, with the
  default SQLite store in a temporary directory (storing and paginating the full payload
  included), per stage; the ratio between consecutive sizes shows that cost grows linearly
  (10x the size should cost about 10x the time);
- peak traced memory (tracemalloc) of the 10 MB cases, relative to the payload size.

``readme_sections()`` is what ``benchmarks/update_readme.py`` imports; importing this module does
no work.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SIZES = {"1KB": 1_000, "100KB": 100_000, "1MB": 1_000_000, "10MB": 10_000_000}
BUDGET = 2000


def _json_payload(target: int) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    size = 40
    i = 0
    while size < target:
        item = {"id": i + 1, "key": f"OPS-{i + 1:06d}", "status": ("open", "closed", "triage")[i % 3],
                "title": f"Disk usage above threshold on host-{i % 211}",
                "body": f"Volume /data on host-{i % 211} reached {70 + i % 30}% at 03:{i % 60:02d}; "
                        "rotate logs or extend the volume. ",
                "labels": ["ops", f"rack-{i % 17}"]}
        size += len(json.dumps(item, separators=(",", ":"))) + 1
        items.append(item)
        i += 1
    return {"query": "disk", "count": len(items), "items": items}


def _text_payload(target: int) -> str:
    words = ("the service restarted after the health check failed twice and the operator was paged "
             "because the queue depth kept growing while the consumer lagged behind").split()
    lines, size, i = [], 0, 0
    while size < target:
        line = f"2026-05-18T03:{i // 60 % 60:02d}:{i % 60:02d}Z worker-{i % 13} " + " ".join(
            words[(i + k) % len(words)] for k in range(12))
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines)


class _StageTimer:
    """Wraps the pipeline's stages to time each one (restored on exit)."""

    def __init__(self) -> None:
        import toolbound._pipeline as P

        self.P = P
        self.original = P.STAGES
        self.times: dict[str, list[float]] = {}

    def __enter__(self) -> _StageTimer:
        wrapped = []
        for mod in self.original:
            name = mod.__name__.rsplit(".", 1)[-1]

            def run(ctx: Any, _mod: Any = mod, _name: str = name) -> None:
                t = time.perf_counter()
                try:
                    _mod.run(ctx)
                finally:
                    self.times.setdefault(_name, []).append(time.perf_counter() - t)

            wrapped.append(types.SimpleNamespace(run=run, __name__=mod.__name__))
        self.P.STAGES = tuple(wrapped)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.P.STAGES = self.original


def _median_ms(xs: list[float]) -> float:
    return round(statistics.median(xs) * 1000, 3)


def bench_counting(reps: int) -> dict[str, Any]:
    from toolbound._jsonutil import canonical_json
    from toolbound._tokens import get_encoder

    t = time.perf_counter()
    enc = get_encoder()
    load_s = time.perf_counter() - t
    out: dict[str, Any] = {"encoding": enc.name, "source": enc.source.split(":", 1)[0],
                           "load_seconds": round(load_s, 3)}
    for kind, text in (("json", canonical_json(_json_payload(1_000_000))), ("text", _text_payload(1_000_000))):
        ts, n = [], 0
        for _ in range(reps):
            t = time.perf_counter()
            n = enc.count(text)
            ts.append(time.perf_counter() - t)
        best = min(ts)
        mb = len(text.encode()) / 1e6
        out[kind] = {"mb": round(mb, 3), "tokens": n, "mb_per_s": round(mb / best, 1),
                     "tokens_per_s": int(n / best)}
    return out


def typical_issue() -> dict[str, Any]:
    """A ~3.4 KB issue-tracker result (tool ``get_issue``; no policy table: every string external)."""
    return {"id": 4412, "key": "OPS-4412", "title": "Login fails after password reset", "status": "open",
            "labels": ["bug", "auth", "p1"],
            "comments": [{"id": i, "author": f"user{i}", "body": "I can reproduce this on staging; the "
                          "session cookie is not refreshed after the reset flow. " * 2} for i in range(15)]}


def typical_ticket() -> dict[str, Any]:
    """A ~3.6 KB helpdesk ticket for ``get_ticket`` in ``examples/policy.toml`` (``/body`` and
    ``/comments/*/text`` external, the rest internal; budget 2,000 tokens)."""
    return {"ticket": 4412, "status": "open", "customer": "acme-corp", "assignee": "ops-oncall",
            "subject": "Login fails after password reset",
            "body": "After resetting my password I cannot log in: the page reloads and shows the login "
                    "form again. Cleared cookies, tried two browsers. Please help, our team is blocked.",
            "comments": [{"id": i, "author": f"agent{i}", "created": f"2026-05-18T03:{i:02d}:00Z",
                          "text": "I can reproduce this on staging; the session cookie is not refreshed "
                                  f"after the reset flow (attempt {i}). Workaround: clear the cookie and "
                                  "log in again."} for i in range(15)]}


def typical_list() -> dict[str, Any]:
    """A ~4.6 KB search result of many short strings (tool ``search_issues``, no policy table):
    one quarantined span per string made this one render over the default 8,000-token budget."""
    return {"query": "login", "total": 52,
            "items": [{"id": i, "key": f"OPS-{4400 + i}", "status": ("open", "closed")[i % 2],
                       "assignee": f"user{i % 7}", "team": "auth"} for i in range(52)]}


POLICY_FILE = ROOT / "examples" / "policy.toml"


def _typical_case(reps: int, doc: Any, tool: str, policy: Any) -> dict[str, Any]:
    import toolbound
    from toolbound._tokens import get_encoder

    for _ in range(50):
        toolbound.sanitize(doc, tool=tool, policy=policy)
    ts = []
    with _StageTimer() as st:
        for _ in range(reps):
            t = time.perf_counter()
            r = toolbound.sanitize(doc, tool=tool, policy=policy)
            ts.append(time.perf_counter() - t)
    ts.sort()
    cold = _cold_p50(max(20, reps // 3), doc, tool, policy)
    return {"json_bytes": len(json.dumps(doc, separators=(",", ":"))), "tool": tool,
            "policy": None if policy is None else "examples/policy.toml",
            "spans": len(r.spans), "truncated": r.meta["budget"]["truncated"],
            "max_tokens": r.meta["budget"]["max_tokens"],
            "model_tokens": get_encoder().count(r.to_model()),
            "sanitize_p50_us": round(ts[len(ts) // 2] * 1e6, 1),
            "sanitize_p90_us": round(ts[int(len(ts) * 0.9)] * 1e6, 1),
            "sanitize_p50_cold_us": round(cold * 1e6, 1),
            "stages_p50_us": {k: round(statistics.median(v) * 1e6, 1) for k, v in st.times.items()}}


def _cold_p50(reps: int, doc: Any, tool: str, policy: Any) -> float:
    """p50 seconds of ``sanitize()`` when none of the result's strings was seen before."""
    import toolbound

    from toolbound._detect.api import clear_text_caches

    ts = []
    for _ in range(reps):
        clear_text_caches()
        t = time.perf_counter()
        toolbound.sanitize(doc, tool=tool, policy=policy)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def bench_typical(reps: int) -> dict[str, Any]:
    from toolbound._policyfile import load_policy

    doc = typical_issue()
    out = _typical_case(reps, doc, "get_issue", None)
    out["budget_stage_p50_us"] = out["stages_p50_us"]["budget"]
    out["render_stage_p50_us"] = out["stages_p50_us"]["render"]
    code = ("import sys, toolbound, json; doc = json.loads(sys.argv[1]); toolbound.sanitize(doc, tool='get_issue'); "
            "print('tiktoken' in sys.modules)")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    loaded = subprocess.run([sys.executable, "-c", code, json.dumps(doc)], capture_output=True, text=True,
                            env=env).stdout.strip()
    out["loads_tiktoken"] = loaded == "True"
    pol = load_policy(POLICY_FILE)
    out["with_policy"] = _typical_case(reps, typical_ticket(), "get_ticket", pol)
    out["policy_no_table"] = _typical_case(reps, doc, "get_issue", pol)
    out["many_fields"] = _typical_case(max(20, reps // 10), typical_list(), "search_issues", None)
    return out


def bench_sizes(quick: bool) -> dict[str, Any]:
    import toolbound
    from toolbound._store import SQLiteStore
    from toolbound._tokens import get_encoder

    enc = get_encoder()
    reps = {"1KB": 200, "100KB": 15, "1MB": 5, "10MB": 3}
    if quick:
        reps = {"1KB": 50, "100KB": 5, "1MB": 2, "10MB": 1}
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as d:
        store = SQLiteStore(Path(d) / "bench.sqlite3")
        for kind, make in (("json", _json_payload), ("text", _text_payload)):
            rows: dict[str, Any] = {}
            for label, target in SIZES.items():
                payload = make(target)
                from toolbound._jsonutil import canonical_json

                nbytes = len(canonical_json(payload).encode())
                toolbound.sanitize(payload, tool="bench", max_tokens=BUDGET, store=store)  # warm
                ts = []
                with _StageTimer() as st:
                    for _ in range(reps[label]):
                        t = time.perf_counter()
                        r = toolbound.sanitize(payload, tool="bench", max_tokens=BUDGET, store=store)
                        ts.append(time.perf_counter() - t)
                tokens = enc.count(r.to_model())
                assert tokens <= BUDGET, (kind, label, tokens)
                rows[label] = {"bytes": nbytes, "ms": _median_ms(ts),
                               "ms_per_mb": round(_median_ms(ts) / (nbytes / 1e6), 1),
                               "stages_ms": {k: _median_ms(v) for k, v in st.times.items()},
                               "model_tokens": tokens, "truncated": r.meta["budget"]["truncated"],
                               "pages": r.pages}
            labels = list(SIZES)
            for a, b in zip(labels, labels[1:]):
                rows[b]["ratio_to_previous"] = {
                    "size": round(rows[b]["bytes"] / rows[a]["bytes"], 2),
                    "time": round(rows[b]["ms"] / rows[a]["ms"], 2)}
            out[kind] = rows
        store.close()
    return out


def bench_memory() -> dict[str, Any]:
    import toolbound
    from toolbound._store import SQLiteStore

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as d:
        store = SQLiteStore(Path(d) / "mem.sqlite3")
        for kind, make in (("json", _json_payload), ("text", _text_payload)):
            payload = make(SIZES["10MB"])
            from toolbound._jsonutil import canonical_json

            nbytes = len(canonical_json(payload).encode())
            tracemalloc.start()
            toolbound.sanitize(payload, tool="bench", max_tokens=BUDGET, store=store)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            out[kind] = {"payload_mb": round(nbytes / 1e6, 2), "peak_mb": round(peak / 1e6, 1),
                         "peak_over_payload": round(peak / nbytes, 2)}
        store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--typical", action="store_true", help="only the typical 4 KB cases; writes nothing")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    import toolbound

    res: dict[str, Any] = {
        "toolbound": toolbound.__version__, "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "budget_tokens": BUDGET,
    }
    res["typical_4kb"] = bench_typical(500 if args.quick else 3000)
    if args.typical:
        _print_typical(res["typical_4kb"])
        return 0
    res["counting"] = bench_counting(3 if args.quick else 7)
    res["sizes"] = bench_sizes(args.quick)
    res["memory_10mb"] = bench_memory()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "economy.json").write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    _print(res)
    return 0


def _print(res: dict[str, Any]) -> None:
    _print_typical(res["typical_4kb"])
    _print_rest(res)


def _print_typical(t: dict[str, Any]) -> None:
    for label, c in (("no policy", t), ("policy", t["with_policy"]), ("policy, no table", t["policy_no_table"]),
                     ("no policy, many short fields", t["many_fields"])):
        print(f"typical {c['json_bytes']:,} B JSON ({label}, tool {c['tool']}, {c['spans']} spans): sanitize p50 "
              f"{c['sanitize_p50_us']} us, p90 {c['sanitize_p90_us']} us, p50 with no string seen before "
              f"{c['sanitize_p50_cold_us']} us; {c['model_tokens']} tokens "
              f"(budget {c['max_tokens']}, truncated: {c['truncated']})")
        print("    stages p50 us: " + ", ".join(f"{k} {v}" for k, v in c["stages_p50_us"].items()))
    print(f"loads tiktoken (no policy): {t['loads_tiktoken']}")


def _print_rest(res: dict[str, Any]) -> None:
    c = res["counting"]
    print(f"counting ({c['encoding']}, from {c['source']}, loaded in {c['load_seconds']} s): "
          f"JSON {c['json']['mb_per_s']} MB/s ({c['json']['tokens_per_s']:,} tokens/s), "
          f"text {c['text']['mb_per_s']} MB/s ({c['text']['tokens_per_s']:,} tokens/s)")
    for kind, rows in res["sizes"].items():
        print(f"sanitize(max_tokens={res['budget_tokens']}) on {kind}:")
        for label, r in rows.items():
            ratio = r.get("ratio_to_previous")
            rtxt = f"  x{ratio['size']} size -> x{ratio['time']} time" if ratio else ""
            print(f"  {label:>6}: {r['ms']:>9.2f} ms  ({r['ms_per_mb']:>7.1f} ms/MB, budget stage "
                  f"{r['stages_ms'].get('budget', 0):.2f} ms, {r['pages']} pages, "
                  f"{r['model_tokens']} tokens shown){rtxt}")
    for kind, m in res["memory_10mb"].items():
        print(f"peak traced memory, 10 MB {kind}: {m['peak_mb']} MB ({m['peak_over_payload']}x the payload)")


def economy_table() -> str:
    p = RESULTS / "economy.json"
    if not p.exists():
        return "_No results yet: run `python benchmarks/bench_economy.py`._"
    res = json.loads(p.read_text(encoding="utf-8"))
    rows = [f"`sanitize(max_tokens={res['budget_tokens']})`, {res['machine']}, Python {res['python']}:", "",
            "| result | JSON ms | JSON ms/MB | text ms | text ms/MB | pages (JSON) |",
            "| --- | --- | --- | --- | --- | --- |"]
    for label in SIZES:
        j, t = res["sizes"]["json"][label], res["sizes"]["text"][label]
        rows.append(f"| {label} | {j['ms']:.2f} | {j['ms_per_mb']:.0f} | {t['ms']:.2f} | {t['ms_per_mb']:.0f} | "
                    f"{j['pages']} |")
    ty = res["typical_4kb"]
    c = res["counting"]
    m = res["memory_10mb"]
    rows += ["", "Typical results, `sanitize()` with every stage on (detection included):", "",
             "| result | policy | bytes | spans | p50 µs | p90 µs | p50 µs, no string seen before | detect p50 µs "
             "| budget p50 µs | tokens shown | cut |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, case in (("issue (`get_issue`)", ty), ("ticket (`get_ticket`)", ty["with_policy"]),
                        ("issue (`get_issue`)", ty["policy_no_table"]),
                        ("52 short records (`search_issues`)", ty["many_fields"])):
        pol = "none" if case["policy"] is None else f"`{case['policy']}`"
        st = case["stages_p50_us"]
        rows.append(f"| {label} | {pol} | {case['json_bytes']:,} | {case['spans']} | {case['sanitize_p50_us']:.0f} | "
                    f"{case['sanitize_p90_us']:.0f} | {_cold_cell(case)} | {st['detect']:.0f} | {st['budget']:.0f} | "
                    f"{case['model_tokens']:,} of {case['max_tokens']:,} | {'yes' if case['truncated'] else 'no'} |")
    rows += ["", "p50 and p90 sanitize the same result again and again, so its strings of at most 64 characters "
             "(statuses, labels, names: they recur across real results too) are answered from the scanner's and "
             "the model's per-text caches; \"no string seen before\" empties those caches before each call."]
    rows += ["", f"A result whose every value is external is quoted as one block, so its markers cost a few tokens "
             f"per result, not per string; the no-policy issue "
             f"{'loads' if ty['loads_tiktoken'] else 'does not load'} the tokenizer (its byte length decides). Counting ({c['encoding']}): "
             f"{c['json']['mb_per_s']} MB/s on JSON. Peak traced memory for 10 MB: "
             f"{m['json']['peak_over_payload']}x (JSON), {m['text']['peak_over_payload']}x (text) the payload."]
    return "\n".join(rows)


def _cold_cell(case: dict[str, Any]) -> str:
    cold = case.get("sanitize_p50_cold_us")
    return "n/a" if cold is None else f"{cold:.0f}"


def readme_sections() -> dict[str, Callable[[], str]]:
    return {"economy": economy_table}


if __name__ == "__main__":
    raise SystemExit(main())
