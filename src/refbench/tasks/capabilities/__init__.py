"""Optional parts of a benchmark beside its core (:class:`refbench.tasks.base.Task`): a task
has a capability when the attribute of that name is set, and every layer asks that, never
which methods a task overrides. One protocol per module; ``docs/task-interface.md`` documents
each."""

from refbench.tasks.capabilities.commands import Commands, CommandServices
from refbench.tasks.capabilities.core import TaskCore
from refbench.tasks.capabilities.coref import CorefGold
from refbench.tasks.capabilities.demo import Demo, Enricher
from refbench.tasks.capabilities.documents import Documents
from refbench.tasks.capabilities.export import HfExport
from refbench.tasks.capabilities.folder import FolderFile, FolderRuns
from refbench.tasks.capabilities.listings import Listings
from refbench.tasks.capabilities.report import Report
from refbench.tasks.capabilities.studies import Studies
from refbench.tasks.capabilities.training import Training
from refbench.tasks.capabilities.web import PLAIN, WebView

__all__ = ["PLAIN", "CommandServices", "Commands", "CorefGold", "Demo", "Documents", "Enricher",
           "FolderFile", "FolderRuns", "HfExport", "Listings", "Report", "Studies", "TaskCore",
           "Training", "WebView"]
