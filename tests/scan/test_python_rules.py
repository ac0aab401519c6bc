"""Python rules on real-looking code: values, shell strings, wrappers and ROCm guards."""

from __future__ import annotations

import ast

import pytest

from rocport.scan.context import PythonSource
from rocport.scan.engine import scan_text
from rocport.scan.registry import Language
from rocport.scan.rules import BY_ID
from rocport.scan.rules.python._process import commands, split_shell


def _scan(rule_id: str, text: str) -> list:
    return scan_text(text, "train.py", Language.PYTHON, [BY_ID[rule_id]])


def _messages(rule_id: str, text: str) -> list[str]:
    return [f.message for f in _scan(rule_id, text)]


@pytest.mark.parametrize(
    ("line", "says", "never"),
    [
        ("torch.backends.cudnn.benchmark = True", "exhaustive Find", "non-exhaustive"),
        ("torch.backends.cudnn.benchmark = False", "non-exhaustive Find", "keeps re-tuning"),
        ("torch.backends.cudnn.enabled = False", "switches MIOpen off", "exhaustive"),
        ("torch.backends.cudnn.allow_tf32 = False", "stay float32", "Ampere+ format"),
        ("torch.backends.cudnn.deterministic = 1", "deterministic results", "switches"),
    ],
)
def test_cudnn_message_follows_the_value(line: str, says: str, never: str) -> None:
    (message,) = _messages("RP303", f"import torch\n{line}\n")
    assert says in message and never not in message


@pytest.mark.parametrize(
    "line",
    [
        "torch.backends.cudnn.enabled = True",
        "torch.backends.cudnn.deterministic = False",
        "torch.backends.cudnn.enabled: bool",
    ],
)
def test_cudnn_defaults_are_not_reported(line: str) -> None:
    assert _messages("RP303", f"import torch\n{line}\n") == []


def test_cudnn_expression_gets_both_meanings() -> None:
    (message,) = _messages("RP303", "import torch\ntorch.backends.cudnn.benchmark = cfg.bench\n")
    assert "when true," in message and "when false," in message
    (message,) = _messages("RP303", "import torch\ntorch.backends.cudnn.enabled = cfg.cudnn\n")
    assert message.count("when ") == 1 and "when false, on ROCm this switches MIOpen off" in message


def test_split_shell() -> None:
    assert split_shell("sudo modprobe nvidia && nvidia-smi -L | tee 'gpu list.txt'") == [
        ["sudo", "modprobe", "nvidia"],
        ["nvidia-smi", "-L"],
        ["tee", "gpu list.txt"],
    ]
    assert split_shell("echo 'unbalanced") == [["echo", "'unbalanced"]]


@pytest.mark.parametrize(
    ("code", "programs"),
    [
        ('os.system("CUDA_VISIBLE_DEVICES=0 timeout 60s ncu -o r ./a")', ["ncu"]),
        ('subprocess.run(["env", "A=1", "nsys", "profile", "./a"])', ["nsys"]),
        ('subprocess.run(["bash", "-lc", "cd x; nvprof ./a"])', ["cd", "nvprof"]),
        ('subprocess.run(["bash", "run_all.sh", "-v"])', ["bash"]),
        ('subprocess.run(["bash", "-c", "cd x; nvprof ./a"])', ["cd", "nvprof"]),
        ('subprocess.run(f"{tool} --set full ./a", shell=True)', []),
        (
            'subprocess.run(" ".join(["watch", "-n", "1", "nvidia-smi"]), shell=True)',
            ["nvidia-smi"],
        ),
        ('CMD = "nvcc -c k.cu"\nsubprocess.run(CMD, shell=True)', ["nvcc"]),
        ('subprocess.run(shlex.split("nice -n 5 cuobjdump -sass a.out"))', ["cuobjdump"]),
    ],
)
def test_commands(code: str, programs: list[str]) -> None:
    text = f"import os, shlex, subprocess\n{code}\n"
    src = PythonSource("t.py", text, ast.parse(text))
    (call,) = [
        n
        for n in src.of_type(ast.Call)
        if (src.qualname(n.func) or "").startswith(("os.", "subprocess."))
    ]
    assert [c[0] for c in commands(src, call)] == programs


def test_nvidia_tool_call_in_real_harness() -> None:
    text = (
        "import subprocess\n"
        "def profile(script, rocm):\n"
        "    if rocm:\n"
        '        cmd = ["rocprofv3", "--kernel-trace", "--", "python", script]\n'
        "    else:\n"
        '        cmd = f"nsys profile -o out python {script}"\n'
        "    subprocess.run(cmd, shell=True, check=True)\n"
        '    subprocess.run("sudo rmmod nvidia_drm nvidia_modeset", shell=True)\n'
        '    subprocess.run("modprobe amdgpu", shell=True)\n'
    )
    found = _scan("RP309", text)
    assert [(f.location.line, f.message.split()[1]) for f in found] == [
        (7, "`nsys`"),  # the assignment nearest above the call
        (8, "of"),
    ]
    assert "rocprofv3" in found[0].fix.title


@pytest.mark.parametrize(
    "code",
    [
        "use_bf16 = torch.version.cuda is not None and torch.cuda.is_bf16_supported()",
        "dtype = 'bfloat16' if torch.version.cuda else 'float16'",
        "amp = dict(enabled=True, bf16=bool(torch.version.cuda))",
        "if not torch.version.cuda:\n    dtype = torch.float16\nelse:\n    dtype = torch.bfloat16",
        "def has_bf16():\n    return torch.version.cuda is not None and cc >= (8, 0)",
        "def bf16_ok():\n    if torch.version.cuda is None or cc < (8, 0):\n        return False\n"
        "    return True",
    ],
)
def test_bf16_switched_off_without_cuda_version(code: str) -> None:
    assert len(_messages("RP310", f"import torch\n{code}\n")) == 1, code


@pytest.mark.parametrize(
    "code",
    [
        "use_bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()",
        "use_bf16 = (torch.version.cuda or torch.version.hip) is not None",
        "use_bf16 = torch.version.cuda is not None or torch.cuda.is_bf16_supported()",
        "dtype = torch.float16 if torch.version.cuda else torch.bfloat16",
        "if torch.version.hip:\n    use_bf16 = True\n"
        "elif torch.version.cuda:\n    use_bf16 = cc >= 8",
        "def bf16_ok():\n    if torch.version.hip:\n        return True\n"
        "    return torch.version.cuda is not None",
        "fp16 = torch.version.cuda is None  # bf16 is set elsewhere",
        "print(torch.version.cuda, 'bf16')",
        "def setup_bf16():\n    if torch.version.cuda is not None:\n"
        "        torch.backends.cuda.matmul.allow_tf32 = True",
    ],
)
def test_bf16_not_reported(code: str) -> None:
    assert _messages("RP310", f"import torch\n{code}\n") == [], code


@pytest.mark.parametrize(
    ("code", "reported"),
    [
        ("if verbose:\n    subprocess.run(['nvidia-smi'])", True),
        ("if torch.version.hip is None:\n    subprocess.run(['nvidia-smi'])", False),
        (
            "def f():\n    if torch.version.hip:\n        return amd()\n"
            "    subprocess.run(['nvidia-smi'])",
            False,
        ),
        (
            "def f():\n    if torch.version.hip:\n        log()\n"
            "    subprocess.run(['nvidia-smi'])",
            True,
        ),
        ("try:\n    subprocess.run(['nvidia-smi'])\nexcept OSError:\n    pass", True),
    ],
)
def test_platform_branches_are_not_reported(code: str, reported: bool) -> None:
    text = f"import subprocess\nimport torch\n{code}\n"
    assert bool(_messages("RP307", text)) is reported
