"""Programs that ``rocport doctor`` runs with ``python -c`` to inspect PyTorch and TensorFlow.

They run in a child interpreter, with a timeout, so that a broken framework install (an
import-time segfault, a missing shared library) cannot take the doctor down.  Each prints
one JSON object on stdout; ``--root`` fixtures store that object in
``.rocport-probes/torch.json`` / ``tensorflow.json``.
"""

from __future__ import annotations

TORCH_PROBE = r"""
import json, sys
out = {"installed": False, "error": None}
try:
    import torch
except ModuleNotFoundError as exc:
    if exc.name != "torch":
        out["error"] = f"{type(exc).__name__}: {exc}"
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
else:
    out.update(installed=True, version=torch.__version__, executable=sys.executable,
               hip=getattr(torch.version, "hip", None), cuda=torch.version.cuda,
               path=torch.__file__)
    try:
        out["available"] = bool(torch.cuda.is_available())
        out["arch_list"] = list(torch.cuda.get_arch_list())
        devices = []
        for i in range(torch.cuda.device_count() if out["available"] else 0):
            p = torch.cuda.get_device_properties(i)
            if torch.version.hip:
                arch = getattr(p, "gcnArchName", "") or f"gfx{p.major}{p.minor}"
            else:
                arch = f"sm_{p.major}{p.minor}"
            devices.append({"index": i, "name": p.name, "arch": arch,
                            "total_memory": p.total_memory})
        out["devices"] = devices
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    try:
        from torch.utils import collect_env
        info = collect_env.get_env_info()
        packages = info.pip_packages or ""
        out["env"] = {
            "hip_runtime_version": info.hip_runtime_version,
            "miopen_runtime_version": info.miopen_runtime_version,
            "gcc_version": info.gcc_version,
            "clang_version": info.clang_version,
            "libc_version": info.libc_version,
            "triton": [p for p in packages.splitlines() if "triton" in p.lower()],
        }
    except Exception as exc:
        out["env"] = {"error": f"{type(exc).__name__}: {exc}"}
print(json.dumps(out))
"""

TENSORFLOW_PROBE = r"""
import importlib.util, json
out = {"installed": False, "error": None}
if importlib.util.find_spec("tensorflow") is not None:
    try:
        import tensorflow as tf
        out.update(installed=True, version=tf.__version__,
                   rocm=bool(tf.test.is_built_with_rocm()),
                   cuda=bool(tf.test.is_built_with_cuda()),
                   gpus=[d.name for d in tf.config.list_physical_devices("GPU")])
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""
