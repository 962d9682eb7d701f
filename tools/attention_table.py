"""The long-sequence attention comparison as a markdown table: popebench's kernels (the default
fp32 ones, TF32 where they have that form, the bf16 flash kernels on mma.sync and Hopper's
warpgroup kernels where the bench ran them) from `popebench bench
--attention-lengths` JSONs, against PyTorch's bf16 rows (`bench/torch_attention.py`) of the same
shape, and against the same kernels of an older binary where one is given (`--before`).

    /usr/bin/python3 -m tools.attention_table POPEBENCH.json TORCH.json [--before OLD.json]
        [--lengths 1024 4096] [--head-dims 64]

One row a (T, D, PE): fwd and bwd in ms, fwd + bwd, PyTorch's fwd + bwd (SDPA for none, SDPA
with ALiBi's bias as its mask, RoPE's rotation (on every channel or half) then SDPA, PoPE
materialised then SDPA: torch_attention.py), and the ratio to it of
the fastest family of popebench's kernels, its fastest forward plus its fastest backward (above
1: slower), and, where the bench timed it, of what `--gpu-attention bf16` runs (attention_fwd /
attention_bwd as the model calls them: the ratio a user gets). popebench's times include the
copies each call makes (the transformed rows in bf16: its inputs are the model's fp32
activations); PyTorch's inputs are bf16 already. The files must come from one kind of GPU
(refused otherwise: only numbers of one card in one command compare). Exit 2 on bad input.
"""
import argparse
import sys

from .json_input import load_json

# (JSON key, column name, family) of the variants `bench` times: the default kernels (fp32
# products; the whole-sequence kernels at T <= 64, the row's own fwd_ms / bwd_ms: key None) and
# their TF32 form, then the flash kernels: mma.sync, the warpgroup forward and backward (its dQ
# kernel), the forward with two warpgroups a block, the forward with each tile's softmax under the
# products, and the backward with its dK dV kernel on warpgroup products too. A variant may time one direction only; a column none of the shown rows
# has is left out. A family is one choice of kernels for a model (`--gpu-attention`): within the
# warpgroup family, a forward and a backward variant can be taken together.
VARIANTS = ((None, "fp32 products", "fp32"), ("tf32", "TF32 products", "tf32"), ("bf16_flash", "mma.sync", "mma.sync"),
            ("bf16_flash_wgmma", "wgmma", "wgmma"), ("bf16_flash_wgmma_2g", "wgmma, 2 groups", "wgmma"),
            ("bf16_flash_wgmma_ov", "wgmma overlapped", "wgmma"),
            ("bf16_flash_wgmma_kv", "wgmma with dK dV", "wgmma"))

# What `--gpu-attention bf16` runs, timed through the model's entry points (bench's
# "bf16_flash_dispatch"; files from before it lack it, and the table then leaves its columns out).
DISPATCH = ("bf16_flash_dispatch", "--gpu-attention bf16")


def fail(msg):
    print(f"attention_table.py: {msg}", file=sys.stderr)
    sys.exit(2)


def rows_of(doc, path):
    rows = doc.get("attention")
    if not isinstance(rows, list):
        fail(f"{path} holds no attention rows (a `popebench bench --attention-lengths` JSON has them)")
    out = {}
    for r in rows:
        try:
            out[(int(r["T"]), int(r["D"]), str(r["pe"]))] = r
        except (KeyError, TypeError, ValueError):
            fail(f"{path}: an attention row without T, D and pe")
    return out


def torch_rows(doc, path):
    out = {}
    for r in doc.get("rows") or []:
        if r.get("dtype") == "bfloat16":
            if "error" in r:  # a way that did not run at that shape (e.g. out of memory): said in its cell
                out[(r.get("T"), r.get("D"), str(r.get("pe")))] = str(r["error"])
                continue
            try:
                out[(int(r["T"]), int(r["D"]), str(r["pe"]))] = float(r["fwd_bwd_ms"])
            except (KeyError, TypeError, ValueError):
                fail(f"{path}: a row without T, D, pe and fwd_bwd_ms")
    if not out:
        fail(f"{path} holds no bfloat16 row")
    return out


def times(row, key):
    """(fwd, bwd) in ms of one variant of a row, either None where the bench did not time it; None
    where the row has no such variant."""
    v = (row if key is None else row.get(key)) if row else None
    if not isinstance(v, dict):
        return None
    f, b = v.get("fwd_ms"), v.get("bwd_ms")
    if f is None and b is None:
        return None
    return (None if f is None else float(f)), (None if b is None else float(b))


def cell(t):
    if t is None:
        return "-"
    f, b = t
    parts = ["-" if x is None else f"{x:.3f}" for x in (f, b)]
    return " / ".join(parts + ([f"{f + b:.3f}"] if f is not None and b is not None else ["-"]))

def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m tools.attention_table", description=__doc__.split("\n\n")[0])
    ap.add_argument("popebench")
    ap.add_argument("torch")
    ap.add_argument("--before", help="an older binary's bench JSON, one of its kernel variants shown beside")
    ap.add_argument("--before-variant", default="bf16_flash", choices=[k for k, _, _ in VARIANTS if k],
                    help="the older binary's variant shown (default: bf16_flash, the mma.sync flash kernels)")
    ap.add_argument("--lengths", type=int, nargs="+", help="only these T (default: every T of the popebench file)")
    ap.add_argument("--head-dims", type=int, nargs="+", help="only these D")
    args = ap.parse_args(argv)

    pb = load_json(args.popebench, "attention_table.py", schema="popebench.bench")
    th = load_json(args.torch, "attention_table.py", schema="popebench.torch_attention")
    before = load_json(args.before, "attention_table.py", schema="popebench.bench") if args.before else None
    gpus = {(pb.get("environment") or {}).get("device"), th.get("device")}
    if before is not None:
        gpus.add((before.get("environment") or {}).get("device"))
    if len(gpus) != 1 or None in gpus:
        fail(f"the files come from different or unnamed GPUs ({', '.join(sorted(map(str, gpus)))})")
    new, ref = rows_of(pb, args.popebench), torch_rows(th, args.torch)
    old = rows_of(before, args.before) if before is not None else {}

    keys = sorted(k for k in new if (not args.lengths or k[0] in args.lengths) and (not args.head_dims or k[1] in args.head_dims))
    if not keys:
        fail("no row of the popebench file has those lengths and head dims")
    order = {"none": 0, "alibi": 1, "rope": 2, "rope-half": 3, "pope": 4}
    keys.sort(key=lambda k: (k[1], k[0], order.get(k[2], 9), k[2]))
    commit = lambda d: str((d.get("environment") or {}).get("git_commit", "?"))[:7]
    head = ["T", "D", "PE"]
    if before is not None:
        head.append(f"{commit(before)} {dict((k, n) for k, n, _ in VARIANTS)[args.before_variant]} fwd / bwd / sum")
    variants = [v for v in VARIANTS if any(times(new[k], v[0]) for k in keys)]  # those measured
    head += [f"{commit(pb)} {name} fwd / bwd / sum" for _, name, _ in variants]
    dispatched = any(times(new[k], DISPATCH[0]) for k in keys)
    if dispatched:
        head.append(f"{commit(pb)} {DISPATCH[1]} fwd / bwd / sum")
    head += ["PyTorch fwd + bwd", "fastest family / PyTorch"] + ([f"{DISPATCH[1]} / PyTorch"] if dispatched else [])
    print(f"GPU: {gpus.pop()}; ms, medians (popebench: {pb.get('iters')} iterations after {pb.get('warmup')} warm-ups)")
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for k in keys:
        r = new[k]
        cols = [str(k[0]), str(k[1]), k[2]]
        if before is not None:
            cols.append(cell(times(old.get(k), args.before_variant)))
        measured = [times(r, key) for key, _, _ in variants]
        cols += [cell(t) for t in measured]
        # The fastest family: its fastest forward plus its fastest backward, each a variant the
        # same command timed.
        best = None
        for fam in dict.fromkeys(f for _, _, f in variants):
            ts = [t for t, (_, _, f) in zip(measured, variants) if f == fam and t is not None]
            fwds, bwds = [t[0] for t in ts if t[0] is not None], [t[1] for t in ts if t[1] is not None]
            if fwds and bwds and (best is None or min(fwds) + min(bwds) < best):
                best = min(fwds) + min(bwds)
        d = times(r, DISPATCH[0]) if dispatched else None
        if dispatched:
            cols.append(cell(d))
        d_sum = d[0] + d[1] if d and d[0] is not None and d[1] is not None else None
        torch_ms = ref.get(k)
        if isinstance(torch_ms, str):
            cols += [torch_ms, "-"] + (["-"] if dispatched else [])
        else:
            cols.append("-" if torch_ms is None else f"{torch_ms:.3f}")
            cols.append("-" if torch_ms is None or best is None else f"{best / torch_ms:.2f}x")
            if dispatched:
                cols.append("-" if torch_ms is None or d_sum is None else f"{d_sum / torch_ms:.2f}x")
        print("| " + " | ".join(cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
