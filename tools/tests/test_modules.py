"""Unit tests of the tools package's pure functions, run from the repository root:

    /usr/bin/python3 -m unittest discover -s tools/tests -t .

The scripts on real run output (tiny runs of the binary) are tools/tests/scripts_on_runs.sh's;
the figures and tables of every committed result are tools/tests/report.sh's.
"""
import contextlib
import gzip
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

from tools import compare_seeds, figure_style, json_input, plateau_levels, same_bits

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def exits_with_one_line(test, fn, *args):
    """fn(*args) must end with SystemExit(2) after one line on stderr; returns the line."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), test.assertRaises(SystemExit) as cm:
        fn(*args)
    test.assertEqual(cm.exception.code, 2)
    lines = err.getvalue().splitlines()
    test.assertEqual(len(lines), 1, lines)
    return lines[0]


class JsonInput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text, gz=False):
        path = os.path.join(self.d, name)
        with (gzip.open(path, "wt", encoding="utf-8") if gz else open(path, "w", encoding="utf-8")) as f:
            f.write(text)
        return path

    def test_plain_and_gzip_read_the_same(self):
        doc = {"schema": "popebench.run", "schema_version": 1, "x": [1, 2]}
        a = self.write("a.json", json.dumps(doc))
        b = self.write("a.inspect.json.gz", json.dumps(doc), gz=True)
        self.assertEqual(json_input.load_json(a, "t"), doc)
        self.assertEqual(json_input.load_json(b, "t", schema="popebench.run", max_version=1), doc)

    def test_bad_files_end_in_one_line(self):
        cut = self.write("cut.json", '{"schema": "popebench.run", "curve": [')
        lst = self.write("list.json", "[1, 2]")
        other = self.write("other.json", '{"schema": "popebench.summary"}')
        newer = self.write("newer.json", '{"schema": "popebench.run", "schema_version": 9}')
        not_gzip = self.write("plain.json.gz", "{}")
        line = exits_with_one_line(self, json_input.load_json, cut, "t")
        self.assertTrue(line.startswith("t: cannot read "), line)
        self.assertIn("not a JSON object", exits_with_one_line(self, json_input.load_json, lst, "t"))
        self.assertIn("not a popebench.run JSON", exits_with_one_line(
            self, json_input.load_json, other, "t", "popebench.run"))
        self.assertIn("newer than this script reads", exits_with_one_line(
            self, json_input.load_json, newer, "t", "popebench.run", 1))
        self.assertIn("cannot read", exits_with_one_line(self, json_input.load_json, not_gzip, "t"))
        self.assertIn("cannot read", exits_with_one_line(
            self, json_input.load_json, os.path.join(self.d, "absent.json"), "t"))
        # A .gz cut short (the committed inspects are stored compressed).
        whole = self.write("w.json.gz", json.dumps({"a": list(range(5000))}), gz=True)
        with open(whole, "rb") as f:
            head = f.read()[:200]
        cut_gz = os.path.join(self.d, "cut.json.gz")
        with open(cut_gz, "wb") as f:
            f.write(head)
        self.assertIn("cannot read", exits_with_one_line(self, json_input.load_json, cut_gz, "t"))

    def test_versions_names_and_globs(self):
        self.assertTrue(json_input.version_readable({}, 0))  # before schema_version existed
        self.assertFalse(json_input.version_readable({"schema_version": True}, 1))
        self.assertFalse(json_input.version_readable({"schema_version": "1"}, 1))
        self.assertEqual(json_input.json_base("x/a.inspect.json.gz"), "x/a.inspect")
        self.assertEqual(json_input.json_base("x/a.json"), "x/a")
        for n in ("b.inspect.json", "a.inspect.json.gz", "c.txt"):
            self.write(n, "{}")
        got = [os.path.basename(p) for p in json_input.glob_json(os.path.join(self.d, "*.inspect.json"))]
        self.assertEqual(got, ["a.inspect.json.gz", "b.inspect.json"])


class Statistics(unittest.TestCase):
    def test_fisher_against_hand_counts(self):
        # 5 of 10 against 0 of 10: twice C(10,5) / C(20,5) (the table and its mirror image).
        self.assertAlmostEqual(compare_seeds.fisher_two_sided_p(5, 10, 0, 10), 2 * 252 / 15504, places=12)
        # 3 of 3 against 0 of 3: 2 / C(6,3) = 0.1, the smallest p three seeds a side can give.
        self.assertAlmostEqual(compare_seeds.fisher_two_sided_p(3, 3, 0, 3), 0.1, places=12)
        self.assertAlmostEqual(compare_seeds.fisher_two_sided_p(2, 3, 1, 2), 1.0, places=12)

    def test_student_t_against_the_table(self):
        # t tables: the two-sided 5 % point is 2.776 at 4 df, 12.706 at 1 df; 1 % is 3.169 at 10 df.
        self.assertAlmostEqual(compare_seeds.t_two_sided_p(2.776, 4), 0.05, places=3)
        self.assertAlmostEqual(compare_seeds.t_two_sided_p(12.706, 1), 0.05, places=3)
        self.assertAlmostEqual(compare_seeds.t_two_sided_p(3.169, 10), 0.01, places=3)
        self.assertAlmostEqual(compare_seeds.t_two_sided_p(0.0, 5), 1.0, places=12)


class SameBitsConfig(unittest.TestCase):
    def run_with(self, train):
        return {"config": {"pe": {"kind": "pope"}, "train": dict(train, seed=0)}}

    def test_an_older_run_compares_as_the_default_it_was_computed_with(self):
        old = same_bits.comparable_config(self.run_with({}))
        self.assertIsNone(same_bits.first_config_difference(old, same_bits.comparable_config(
            self.run_with({"gpu_attention": "fp32"}))))
        self.assertEqual(same_bits.first_config_difference(old, same_bits.comparable_config(
            self.run_with({"gpu_attention": "bf16"}))), "config.train.gpu_attention")

    def test_later_fields_name_the_defaults_config_hpp_declares(self):
        # The value filled in must be what popebench reads an absent field as.
        with open(os.path.join(ROOT, "config", "config.hpp")) as f:
            hpp = f.read()
        self.assertIn("GpuAttention gpu_attention = GpuAttention::kFp32;", hpp)
        self.assertEqual(same_bits.LATER_FIELDS, {"train.gpu_attention": "fp32"})


class PlateauLevels(unittest.TestCase):
    def test_a_string_of_three_by_hand(self):
        # Strings of 3 letters, shifts +-1: the valid (source, shift) pairs are (0,+1), (1,-1),
        # (1,+1), (2,-1). A uniform letter is right 1/3 of the time; knowing the source but not
        # the shift, sources 0 and 2 have one target and source 1 two: 1/4 + 1/4 + 1/4 = 3/4;
        # with the shift's sign every pair is determined: 1.
        lv = plateau_levels.plateau_levels(3, 3, 1, "joint")
        self.assertAlmostEqual(lv["any letter of the string"][1], 1 / 3, places=12)
        self.assertAlmostEqual(lv["any letter of the string"][0], math.log(3), places=12)
        self.assertAlmostEqual(lv["source found, shift ignored"][1], 0.75, places=12)
        self.assertAlmostEqual(lv["source found, shift ignored"][0], 0.5 * math.log(2), places=12)
        self.assertAlmostEqual(lv["source found, sign of the shift read"][1], 1.0, places=12)

    def test_pair_draws_are_distributions(self):
        for draw in ("joint", "shift-first", "source-first"):
            prob = plateau_levels.pair_probabilities(25, 15, draw)
            self.assertAlmostEqual(sum(prob.values()), 1.0, places=12, msg=draw)
            self.assertTrue(all(0 <= p + s < 25 and s != 0 for p, s in prob))


class FigureStyle(unittest.TestCase):
    def test_legends_in_the_tables_order(self):
        # The paper's Table 1 (rope, pope), then Table 9, then the rest by name.
        got = sorted(["none", "sinusoidal", "pope", "alibi", "rope", "learned", "rope-half", "alibi-half"],
                     key=figure_style.table_rank)
        self.assertEqual(got, ["rope", "pope", "rope-half", "alibi-half", "learned", "sinusoidal", "alibi", "none"])

    def test_every_pe_has_its_own_colour(self):
        pes = ["rope", "pope", "rope-half", "alibi-half", "learned", "sinusoidal", "alibi", "none"]
        self.assertEqual(len({figure_style.pe_colour(p) for p in pes}), len(pes))


class Layout(unittest.TestCase):
    """The package stands on its own: results/ holds data, not code (the Indirect Indexing
    screen's scripts excepted until its conclusion lands), and no tool edits sys.path."""

    def test_no_python_under_results_but_the_screens(self):
        files = subprocess.run(["git", "ls-files", "results/*.py", "results/**/*.py"], cwd=ROOT,
                               capture_output=True, text=True)
        if files.returncode != 0:
            self.skipTest("not a git checkout")
        stray = [f for f in files.stdout.split() if not f.startswith("results/indirect_indexing/screen/")]
        self.assertEqual(stray, [])

    def test_no_sys_path_edits(self):
        for d, _, names in os.walk(os.path.join(ROOT, "tools")):
            for n in names:
                path = os.path.join(d, n)
                if n.endswith(".py") and os.path.abspath(path) != os.path.abspath(__file__):  # this file names it
                    with open(path, encoding="utf-8") as f:
                        self.assertNotIn("sys.path", f.read(), n)

    def test_every_tool_answers_help(self):
        for n in sorted(os.listdir(os.path.join(ROOT, "tools"))):
            if not n.endswith(".py") or n in ("__init__.py", "json_input.py", "plot_common.py", "figure_style.py"):
                continue
            p = subprocess.run([sys.executable, "-m", "tools." + n[:-3], "--help"], cwd=ROOT,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, f"{n}: {p.stderr.strip()[-300:]}")
            self.assertTrue(p.stdout.strip(), n)


if __name__ == "__main__":
    unittest.main()
