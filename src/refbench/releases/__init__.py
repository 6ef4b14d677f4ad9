"""Every benchmark by name: the published releases (``tasks/<name>/releases.json``), fetching
them with checked sha256s into a data folder (``refbench data get``), and resolving
``NAME[:SPLIT]`` to a file there (``--data NAME`` in every command that reads data).

Above ``tasks/`` (it reads their manifests through the task registry), below ``cli/``.
"""

from refbench.releases.cache import data_dir, looks_like_release, resolve, status
from refbench.releases.manifest import Release, ReleaseFile, all_releases, get_release

__all__ = ["Release", "ReleaseFile", "all_releases", "data_dir", "get_release",
           "looks_like_release", "resolve", "status"]
