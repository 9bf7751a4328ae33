#!/usr/bin/env python3
"""Tests of tools/profile.py's runs of ncu, with a stand-in ncu: a script that fails the first
runs it is given, as a profile spoiled by another process's kernels fails, then reports every
metric the tool asks for.

    test_profile.py
"""
import os
import stat
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import profile as course_profile  # noqa: E402  (tools/profile.py, not the standard library's)

# Fails (exit 1) while its run count is below FAILURES, then prints ncu's CSV with a value for
# every --metrics name it was given.
FAKE_NCU = textwrap.dedent('''\
    #!{python}
    import sys
    from pathlib import Path
    counter = Path({counter!r})
    runs = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(runs))
    if runs <= {failures}:
        print("==ERROR== the profiled pass was disturbed", file=sys.stderr)
        sys.exit(1)
    metrics = sys.argv[sys.argv.index("--metrics") + 1].split(",")
    print('"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"')
    for name in metrics:
        print(f'"0","1","tiled_kernel","{{name}}","","1,024"')
    ''')


class Retries(unittest.TestCase):
    def ncu(self, failures: int) -> str:
        folder = tempfile.mkdtemp(prefix="fake_ncu_")
        path = os.path.join(folder, "ncu")
        with open(path, "w") as out:
            out.write(FAKE_NCU.format(python=sys.executable, failures=failures,
                                      counter=os.path.join(folder, "runs")))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def test_a_run_that_fails_once_is_tried_again(self):
        result = course_profile.profile(self.ncu(failures=1), "demo", "tiled", "^tiled_kernel",
                                        None, [])
        self.assertEqual(result["kernel"], "tiled_kernel")
        self.assertEqual(result["metrics"]["gpu__time_duration.sum"], 1024.0)

    def test_a_failure_that_repeats_is_reported(self):
        with self.assertRaisesRegex(RuntimeError, "ncu or the demo failed .* rung tiled"):
            course_profile.profile(self.ncu(failures=course_profile.ATTEMPTS), "demo", "tiled",
                                   "^tiled_kernel", None, [])


# The demo's table when the build or the GPU cannot run a rung: no kernel ran, nothing to profile.
SKIPPED_TABLE = textwrap.dedent('''\
    rung         kind      status   time ms   GFLOP/s  note
    flash_mma    exercise  ok         0.770  356799.0
    flash_wgmma  stretch   skipped        -         -  needs sm_90a code, and this build has none
    ''')


class UnsupportedRung(unittest.TestCase):
    def test_a_skipped_rung_is_a_skip_with_the_demos_reason(self):
        why = course_profile.unsupported_rung(SKIPPED_TABLE, "flash_wgmma")
        self.assertIn("cannot run rung flash_wgmma", why)
        self.assertIn("needs sm_90a code", why)

    def test_a_rung_that_ran_is_not_a_skip(self):
        self.assertIsNone(course_profile.unsupported_rung(SKIPPED_TABLE, "flash_mma"))
        self.assertIsNone(course_profile.unsupported_rung(SKIPPED_TABLE, "flash"))


if __name__ == "__main__":
    unittest.main()
