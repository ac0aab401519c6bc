"""RP304 tf-hides-gpus: `tf.config.set_visible_devices([], 'GPU')`.

## What it does
Flags calls of `tf.config.set_visible_devices` and `tf.config.experimental.set_visible_devices`
whose device list is empty and whose device type is `'GPU'`.

## Why is this bad?
The call hides every GPU from TensorFlow. It is often copied from CUDA setups to "run on CPU
while the NVIDIA GPU is busy" or to select a device; on tensorflow-rocm AMD GPUs are `'GPU'`
devices too, so the whole program silently runs on the CPU.

## Example
```python
tf.config.set_visible_devices([], "GPU")
```
Use instead:
```python
gpus = tf.config.list_physical_devices("GPU")
tf.config.set_visible_devices(gpus[:1], "GPU")   # or HIP_VISIBLE_DEVICES=0
```

## Fix safety
No automatic fix: hiding the GPUs may be intended (a CPU-only test run).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule

_CALLS = (
    "tensorflow.config.set_visible_devices",
    "tensorflow.config.experimental.set_visible_devices",
)


@rule(id="RP304", name="tf-hides-gpus", severity=Severity.WARNING, language=Language.PYTHON)
def check(src: PythonSource) -> Iterator[Finding]:
    if "set_visible_devices" not in src.text:
        return
    for call in src.of_type(ast.Call):
        name = src.qualname(call.func)
        if name is None or name.replace("tf.", "tensorflow.", 1) not in _CALLS:
            continue
        devices = call.args[0] if call.args else _keyword(call, "devices")
        kind = call.args[1] if len(call.args) > 1 else _keyword(call, "device_type")
        empty = isinstance(devices, ast.List | ast.Tuple) and not devices.elts
        gpu = isinstance(kind, ast.Constant) and str(kind.value).upper() == "GPU"
        if empty and gpu:
            yield src.node_finding(
                call,
                "`set_visible_devices([], 'GPU')` hides every GPU, AMD ones included: "
                "TensorFlow runs on the CPU",
                src.hint(
                    "Select GPUs with `list_physical_devices('GPU')[...]` or HIP_VISIBLE_DEVICES"
                ),
            )


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)
