"""The one style of every popebench figure: a PE has the same colour in every figure, accuracy
axes are logarithmic from 1 % (so that chance, the plateau and a run that learned are all
readable on one axis) with chance and the plateau drawn and labelled with their values, a legend
has one entry per PE (its seeds are thin lines or points of its colour), and every figure is
written as PNG and PDF, each beside its path and renamed, so that a failed write leaves no cut
file. tools/report.py redraws every committed figure through these."""
import os

# One colour per PE in every figure. PoPE and its variants blues, RoPE and its variants reds and
# purples, the rest apart from both.
PE_COLOURS = {"pope": "#1f77b4", "pope-delta0": "#17becf", "rope": "#d62728", "rope+pi": "#ff7f0e",
              "rope+ntk": "#e377c2", "rope+yarn": "#8c2d04", "none": "#7f7f7f", "alibi": "#2ca02c",
              "alibi-half": "#98df8a", "rope-half": "#9467bd", "rope-half+pi": "#c5b0d5",
              "rope-half+ntk": "#f7b6d2", "learned": "#8c564b", "sinusoidal": "#bcbd22"}
# The summary tables' row order (report/summary.cpp: the paper's Table 1, then its Table 9);
# other PEs follow by name. Legends list PEs in this order, as the tables do.
TABLE_ORDER = ["rope", "pope", "rope-half", "alibi-half", "learned", "sinusoidal"]
# Accuracy axes start at 1 %: below it no result of this suite says anything (the lowest chance
# level is 1 %, a 100-letter alphabet), and a log axis needs a floor.
ACC_FLOOR = 1.0
ACC_TICKS = [1, 2, 5, 10, 20, 50, 100]


def pe_colour(pe):
    return PE_COLOURS.get(pe, "k")


def table_rank(pe):
    return (TABLE_ORDER.index(pe), "") if pe in TABLE_ORDER else (len(TABLE_ORDER), pe)


def accuracy_axis(ax, which="y", label="accuracy %"):
    """A log accuracy axis from ACC_FLOOR to 100 % with plain-number ticks."""
    set_scale, set_lim, set_ticks, set_label = (
        (ax.set_yscale, ax.set_ylim, ax.set_yticks, ax.set_ylabel) if which == "y" else
        (ax.set_xscale, ax.set_xlim, ax.set_xticks, ax.set_xlabel))
    set_scale("log")
    set_lim(ACC_FLOOR, 100)
    set_ticks(ACC_TICKS, [str(t) for t in ACC_TICKS])
    (ax.yaxis if which == "y" else ax.xaxis).set_minor_formatter(_no_labels())
    set_label(label + " (log scale)")


def _no_labels():
    from matplotlib.ticker import NullFormatter
    return NullFormatter()


def clip_accuracy(values):
    """Accuracies (%) raised to the axis floor, so that a 0 % run is drawn on the axis, not lost."""
    return [max(ACC_FLOOR, v) for v in values]


def levels(ax, chance=None, plateau=None, which="y", plateau_name="plateau"):
    """Chance (dotted) and a plateau (dash-dot) as lines across the plot, labelled with their
    values; arguments in %, None to leave one out."""
    line = ax.axhline if which == "y" else ax.axvline
    if chance is not None:
        line(max(ACC_FLOOR, chance), color="k", ls=":", lw=1, label=f"chance ({chance:.2f} %)")
    if plateau is not None:
        line(plateau, color="k", ls="-.", lw=1, label=f"{plateau_name} ({plateau:.2f} %)")


def pe_legend_handles(pes, counts=None):
    """Legend handles, one per PE in table order: a line of its colour, its label the PE with
    counts[pe] (e.g. '3 seeds', '2 of 3 above 50 %') after it when given."""
    from matplotlib.lines import Line2D
    out = []
    for pe in sorted(pes, key=table_rank):
        label = pe if not counts or pe not in counts else f"{pe}: {counts[pe]}"
        out.append(Line2D([], [], color=pe_colour(pe), lw=2, label=label))
    return out


def legend_beside(ax, handles=None, fontsize=8):
    """The legend right of the axes, where it covers no data."""
    kw = dict(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, frameon=False)
    if handles is not None:
        ax.legend(handles=handles, **kw)
    else:
        ax.legend(**kw)


def save(fig, png_path):
    """Writes fig to png_path and to the same name with .pdf, then closes it. The PDF carries no
    creation date, so that redrawing unchanged results gives an unchanged file. A file that
    cannot be written exits 2 with one line naming the script that was drawing."""
    import sys
    import matplotlib.pyplot as plt
    script = os.path.basename(sys.argv[0]) if sys.argv[0].endswith(".py") else "figure_style.py"
    base = os.path.splitext(png_path)[0]
    for ext, meta in ((".png", {"Software": None}), (".pdf", {"CreationDate": None, "Producer": None})):
        path = base + ext
        tmp = f"{base}.tmp{ext}"
        try:
            os.makedirs(os.path.dirname(os.path.abspath(png_path)), exist_ok=True)
            fig.savefig(tmp, dpi=120, bbox_inches="tight", metadata=meta)
            os.replace(tmp, path)
        except OSError as err:
            if os.path.exists(tmp):
                os.remove(tmp)
            print(f"{script}: cannot write the figure {path}: {err.strerror or err}", file=sys.stderr)
            sys.exit(2)
    plt.close(fig)
    print("wrote", base + ".png", "and .pdf")


def length_axis(ax, factors):
    """Test length as multiples of the training maximum on a log axis, a tick at each factor."""
    ax.set_xscale("log")
    ax.set_xlim(min(factors) / 1.15, max(factors) * 1.15)
    ax.set_xticks(factors, [f"{f:g}x" for f in factors])
    ax.xaxis.set_minor_formatter(_no_labels())
    ax.set_xlabel("test length, multiple of the training maximum (log scale; bucket ((k-1)L, kL] at k)")


def by_length(ax, factors, seeds_by_pe, chance=None, learned_above=None, bits=False):
    """Accuracy against length: each seed a thin line, the mean over seeds a thick one, one legend
    entry per PE (with learned_above, how many of its seeds exceed it at the training length).
    seeds_by_pe: {pe label: [[acc % per factor], ...]}; chance in %. bits: the values are bits
    per byte (the text task), drawn on a linear axis, lower better, with no chance level."""
    clip = (lambda xs: xs) if bits else clip_accuracy
    counts = {}
    for pe, seeds in seeds_by_pe.items():
        c = pe_colour(pe)
        style = "--" if "half" in pe else "-"  # the paper's "half" baselines dashed
        for acc in seeds:
            ax.plot(factors, clip(acc), style, lw=0.8, alpha=0.4, color=c)
        mean = [sum(a[i] for a in seeds) / len(seeds) for i in range(len(factors))]
        ax.plot(factors, clip(mean), style, marker="o", ms=3, lw=2, color=c)
        n = len(seeds)
        counts[pe] = (f"{sum(a[0] > learned_above for a in seeds)} of {n} above {learned_above:g} %"
                      if learned_above is not None else f"{n} seed{'s' if n != 1 else ''} (thick: mean)")
    ax.axvspan(min(factors) / 1.15, 1, color="k", alpha=0.06)
    length_axis(ax, factors)
    if bits:
        ax.set_ylabel("test bits per byte (lower is better)")
    else:
        accuracy_axis(ax, "y", "test accuracy %")
        levels(ax, chance=chance)
    handles = pe_legend_handles(seeds_by_pe, counts)
    from matplotlib.patches import Patch
    handles.append(Patch(color="k", alpha=0.06, label="up to the training length"))
    handles += [h for h in ax.get_legend_handles_labels()[0] if h.get_label().startswith("chance")]
    legend_beside(ax, handles)
