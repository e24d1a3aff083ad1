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
        # report.md rendered by scripts/gpu_report.py from what the check wrote.
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        self.assertTrue(report.startswith("# GPU check: "), report)
        self.assertIn("    GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n", report)
        self.assertIn("## Verdict\n\nINCOMPLETE after ", report)
        self.assertIn("- missing tools: meson ninja mpiexec", report)
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


class GpuReport(unittest.TestCase):
    """scripts/gpu_report.py on the files of a check that ran every step."""

    def test_every_section_from_the_checks_files(self):
        out = tempfile.mkdtemp(prefix="gpu-report-test-")
        self.addCleanup(shutil.rmtree, out)
        files = {
            "check.txt": "host=gpu1\ngpus=1\nshared_gpu=1\nverdict=FAIL\nelapsed_s=42\n",
            "gpus.txt": "GPU 0: NVIDIA H200 (UUID: GPU-1)\n",
            "version.txt": "collbench 0.2.0\nCUDA: CUDA runtime 12.4\n",
            "tests.log": "noise\n[       OK ] IpcCuda.EveryAlgorithmMatchesReferenceBitExactly (12 ms)\n",
            "runs.csv": "name,ranks,exit,rows,wrong\nschedules,2,0,96,0\nnccl-pat,1,2,0,0\n",
            "refused.txt": "nccl-pat: not run here: NCCL error\n",
            "schedules.csv": "transport\nipc\n",
            "schedules.txt": "# allreduce on 2 ranks, fp32 sum:\nother\n# Wrong rows: 0\n",
            "reasons.txt": "nccl: exit status 1, 0 rows (nccl.txt)\n"}
        for name, text in files.items():
            with open(os.path.join(out, name), "w") as f:
                f.write(text)
        result = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "gpu_report.py"),
                                 out], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "report.md")) as f:
            report = f.read()
        for part in ("# GPU check: gpu1, 1 GPU(s)\n", "    GPU 0: NVIDIA H200 (UUID: GPU-1)\n",
                     "```\ncollbench 0.2.0\nCUDA: CUDA runtime 12.4\n```\n",
                     "## CUDA tests\n\n    [       OK ] IpcCuda.EveryAlgorithm",
                     "with one GPU the schedules ran on 2 ranks sharing it.",
                     "| schedules | 2 | 0 | 96 | 0 |\n| nccl-pat | 1 | 2 | 0 | 0 |\n",
                     "- nccl-pat: not run here: NCCL error\n",
                     "Footer of `schedules`:\n\n    # allreduce on 2 ranks, fp32 sum:\n"
                     "    # Wrong rows: 0\n",
                     "## Verdict\n\nFAIL after 42 s.\n\n- nccl: exit status 1"):
            self.assertIn(part, report)
        self.assertNotIn("noise", report)
        self.assertNotIn("Footer of `nccl`", report)

    def test_a_directory_without_check_txt_is_refused(self):
        out = tempfile.mkdtemp(prefix="gpu-report-test-")
        self.addCleanup(shutil.rmtree, out)
        result = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "gpu_report.py"),
                                 out], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "report.md")))


if __name__ == "__main__":
    unittest.main()
