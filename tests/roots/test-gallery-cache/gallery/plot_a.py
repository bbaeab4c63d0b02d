"""
Example a
=========

Logs that it ran, with the torch it ran on.
"""

import importlib.metadata
from pathlib import Path

with open(Path.cwd().parent / "runs.log", "a") as log:
    log.write(f"a {importlib.metadata.version('torch')}\n")

# sphinx_gallery_start_ignore
print("only the build runs this")
# sphinx_gallery_end_ignore
