# Every PEP 517 hook must run in a fresh process, as under pip: this setup.py fails when it
# finds that it already ran in the same interpreter, or that the backend's module state
# carries what an earlier hook did.
import builtins
import sys
import warnings

import setuptools

if getattr(builtins, "_hooks_fresh_ran", False) or getattr(setuptools, "_hooks_fresh", False):
    raise RuntimeError("setup.py ran twice in one interpreter")
builtins._hooks_fresh_ran = True
setuptools._hooks_fresh = True
warnings.warn("hooks-fresh: setup.py ran", UserWarning, stacklevel=1)
sys.stdout.write("hooks-fresh: output\n")
setuptools.setup()
