#!/usr/bin/python3
"""scripts/gpu-check.sh without a GPU, and its usage errors.

Run by meson (suite scripts) with /usr/bin/python3 (by hand:
python3 tests/scripts/gpu_check_test.py); standard library only. Each case runs
the script with a PATH of its own, so a machine that has a GPU (and a real
nvidia-smi) tests the same thing: no nvidia-smi, an nvidia-smi that fails, one
that lists no device (each: one "no GPU:" line, exit 0, nothing built or
written), and one that lists a GPU on a machine without meson (the check
starts, writes its directory and ends INCOMPLETE with exit 3).
"""
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "gpu-check.sh")
# What the script may call before and right after it finds a GPU; meson,
# ninja and mpiexec are left out on purpose.
TOOLS = ["bash", "dirname", "timeout", "grep", "head", "date", "hostname", "mkdir", "tee",
         "sed", "cat", "awk", "rm", "cut", "tail", "printf"]


class GpuCheckWithoutAGpu(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpu-check-test-")
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        for tool in TOOLS:
            path = shutil.which(tool)
            if path:
                os.symlink(path, os.path.join(self.bin, tool))
        self.out = os.path.join(self.tmp, "out")
        self.build = os.path.join(self.tmp, "build-gpu")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def fake_nvidia_smi(self, text, status):
        path = os.path.join(self.bin, "nvidia-smi")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nprintf '%s\\n' '" + text + "'\nexit " + str(status) + "\n")
        os.chmod(path, 0o755)

    def run_check(self, *args):
        env = {"PATH": self.bin, "HOME": self.tmp, "LC_ALL": "C"}
        return subprocess.run([shutil.which("bash"), SCRIPT, "--out", self.out, "--build",
                               self.build, *args], env=env, capture_output=True, text=True,
                              timeout=120)

    def assert_no_gpu(self, result, reason):
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 1, result.stdout)
        self.assertTrue(lines[0].startswith("no GPU: "), lines[0])
        self.assertIn(reason, lines[0])
        self.assertEqual(result.stderr, "")
        self.assertFalse(os.path.exists(self.out), "wrote its output directory")
        self.assertFalse(os.path.exists(self.build), "started a build")

    def test_without_nvidia_smi(self):
        self.assert_no_gpu(self.run_check(), "nvidia-smi is not on PATH")

    def test_nvidia_smi_that_fails(self):
        self.fake_nvidia_smi("NVIDIA-SMI has failed because it could not communicate with the "
                             "NVIDIA driver.", 9)
        self.assert_no_gpu(self.run_check(), "'nvidia-smi -L' failed: NVIDIA-SMI has failed")

    def test_nvidia_smi_without_devices(self):
        self.fake_nvidia_smi("No devices found.", 0)
        self.assert_no_gpu(self.run_check(), "lists no device")

    def test_a_listed_gpu_starts_the_check(self):
        self.fake_nvidia_smi("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)", 0)
        result = self.run_check()
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        last = result.stdout.splitlines()[-1]
        self.assertTrue(last.startswith("gpu-check: INCOMPLETE: 1 GPU(s)"), last)
        self.assertIn("missing tools: meson ninja mpiexec", last)
        self.assertTrue(os.path.isfile(os.path.join(self.out, "report.md")))
        self.assertFalse(os.path.exists(self.build), "built without meson")

    def test_bad_arguments_exit_2_with_one_line(self):
        for args in (["--budget", "soon"], ["--budget", "5"], ["--frobnicate"], ["--out"]):
            with self.subTest(args=args):
                env = {"PATH": self.bin, "LC_ALL": "C"}
                result = subprocess.run([shutil.which("bash"), SCRIPT, *args], env=env,
                                        capture_output=True, text=True, timeout=60)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stdout, "")
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertTrue(result.stderr.startswith("gpu-check: "), result.stderr)


if __name__ == "__main__":
    unittest.main()
