"""popebench's research tools: the Python that reads what popebench writes (run, summary,
extrapolation, eval and inspect JSON; results/SCHEMA.md) and turns it into tables, figures and
checks. The product (the C++/CUDA binary) never imports it; results/ holds only data, figures,
plans and READMEs.

Run a tool as a module of this package from the repository root, e.g.

    /usr/bin/python3 -m tools.report             # every figure and generated table of results/
    /usr/bin/python3 -m tools.plot results/quick  # one folder's figures

`--help` on any of them says what it reads and writes. One module per concern:

  reading:    json_input (every JSON reader; one-line errors, .json.gz too)
  tables:     summary_table, extrapolation_table, eval_extrapolation, lm_table, batch_table,
              attention_table (the long-sequence attention against PyTorch),
              compare_seeds (k of n and Fisher's exact test), choose_setup, readme_tables
              (the generated tables of the Markdown files)
  figures:    plot, plot_inspect, frequency_usage, report (all of them), figure_style and
              plot_common (what they share)
  checks:     same_bits (two runs computed the same numbers)
  task maths: plateau_levels (Indirect Indexing's partial solutions), most_frequent_value
              (associative recall's plateau)

The Indirect Indexing screen's scripts (results/indirect_indexing/screen/*.py) import this
package from there until the screen's conclusion lands. Tests: tools/tests (CTest label tools,
part of `./run.sh test`).
"""
