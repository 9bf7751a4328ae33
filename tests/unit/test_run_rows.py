#!/usr/bin/env python3
"""Tests of cmake/course_run_rows.sh's row mode, the verdict kept outside the process that runs
the student's code: stand-in test binaries (shell scripts) report a configuration and ceilings,
and the runner must fail every run whose report differs from what it set.

    test_run_rows.py
"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "..", "cmake", "course_run_rows.sh")


class RowRunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.ceilings = os.path.join(self.tmp.name, "ceilings")
        os.mkdir(self.ceilings)
        with open(os.path.join(self.ceilings, "device_copy.ceiling"), "w") as f:
            f.write("uuid 3000.5 1 1 1 15\ndevice copy\nGB/s\nhow\n")

    def tearDown(self):
        self.tmp.cleanup()

    def row(self, body, **env):
        """Runs a stand-in binary whose shell @p body prints what a row would, through the row
        runner, with the environment @p env on top of a clean one."""
        exe = os.path.join(self.tmp.name, "row.sh")
        with open(exe, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(exe, os.stat(exe).st_mode | stat.S_IXUSR)
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                       "COURSE_CEILINGS_DIR": self.ceilings, **env}
        return subprocess.run(["sh", RUNNER, "row", exe, "tiled.speed"], capture_output=True,
                               text=True, env=environment)

    def test_a_row_that_reports_what_it_was_given_keeps_its_exit_code(self):
        ok = 'echo "[course] run: seed=$COURSE_SEED quick=0 sanitize=0"\n' \
             'echo "[course] ceiling-used device_copy.ceiling 3000.5"'
        self.assertEqual(self.row(ok).returncode, 0)
        self.assertEqual(self.row(ok + "\nexit 3").returncode, 3)

    def test_the_runner_chooses_the_seed_unless_one_is_replayed(self):
        run = self.row('echo "seed is $COURSE_SEED"\n'
                       'echo "[course] run: seed=$COURSE_SEED quick=0 sanitize=0"')
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertRegex(run.stdout, r"seed is \d+")
        replay = self.row('echo "[course] run: seed=16 quick=0 sanitize=0"', COURSE_SEED="0x10")
        self.assertEqual(replay.returncode, 0, replay.stdout)

    def test_a_changed_configuration_fails_the_row(self):
        for report in ('echo "[course] run: seed=$COURSE_SEED quick=1 sanitize=0"',
                       'echo "[course] run: seed=7 quick=0 sanitize=0"',
                       'echo "[course] run: seed=$COURSE_SEED quick=0 sanitize=0"\n'
                       'echo "[course] run: seed=$COURSE_SEED quick=1 sanitize=0"'):
            with self.subTest(report):
                run = self.row(report)
                self.assertEqual(run.returncode, 1, run.stdout)
                self.assertIn("TAMPERED", run.stdout)

    def test_quick_and_sanitize_are_expected_as_set(self):
        report = 'echo "[course] run: seed=$COURSE_SEED quick=1 sanitize=memcheck"'
        run = self.row(report, COURSE_QUICK="1", COURSE_SANITIZE="1",
                       COURSE_SANITIZE_TOOL="memcheck")
        self.assertEqual(run.returncode, 0, run.stdout)

    def test_a_changed_ceiling_fails_the_row(self):
        run = self.row('echo "[course] run: seed=$COURSE_SEED quick=0 sanitize=0"\n'
                       'echo "[course] ceiling-used device_copy.ceiling 1.0"')
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("TAMPERED", run.stdout)
        self.assertIn("3000.5", run.stdout)

    def test_a_passing_row_that_says_nothing_fails(self):
        run = self.row("exit 0")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("never said", run.stdout)

    def test_skipped_stays_skipped(self):
        self.assertEqual(self.row('echo "[course] SKIPPED: no GPU"\nexit 77').returncode, 77)

    def reject(self, row_body, **env):
        """A mutant's check (mode reject) over a stand-in binary with the rows tiled.speed and
        tiled.correct, each running @p row_body after reporting its configuration."""
        exe = os.path.join(self.tmp.name, "mutant.sh")
        with open(exe, "w") as f:
            f.write('#!/bin/sh\ncase "$1" in --list-test-cases*) printf "tiled.speed\\n'
                    'tiled.correct\\n"; exit 0;; esac\n'
                    'echo "[course] run: seed=$COURSE_SEED quick=0 sanitize=0"\n' + row_body + "\n")
        os.chmod(exe, os.stat(exe).st_mode | stat.S_IXUSR)
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
        return subprocess.run(["sh", RUNNER, "reject", exe, "tiled.speed,tiled.correct"],
                              capture_output=True, text=True, env=environment, timeout=60)

    def test_a_mutant_is_rejected_by_a_failing_row_and_not_by_passing_ones(self):
        self.assertEqual(self.reject("exit 1").returncode, 0)
        run = self.reject("exit 0")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("not rejected", run.stdout)

    def test_a_row_that_hangs_rejects_the_mutant_at_the_rows_limit(self):
        run = self.reject("sleep 30", COURSE_ROW_TIMEOUT="1")
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("rejected", run.stdout)

    def test_a_mutant_without_a_gpu_is_skipped_by_its_first_row(self):
        run = self.reject('echo "[course] SKIPPED: no GPU"\nexit 77')
        self.assertEqual(run.returncode, 77, run.stdout)

    def test_a_missing_binary_fails(self):
        run = subprocess.run(["sh", RUNNER, "row", "/no/such/binary", "tiled.speed"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn("did it build", run.stdout)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:]])
