"""Knowledge ablations (``--task-arg ablate=background|entity|both``): the same KITMUS
instances with knowledge sentences removed from the text, to ask whether a model uses the
knowledge it is given.

A native instance knows each sentence's role (:class:`~refbench.tasks.kitmus.instance.Sentence`):
``background`` removes the background-knowledge sentence (what an occupation does; only the
inference-time variants state it), ``entity`` the entity-specific sentences (who has which
occupation), ``both`` both. The task text (the meet and pronoun sentences, and any noise) stays,
so the candidates, their order and the answer are those of the full instance: a run on an
ablation pairs instance by instance with a run on the full text (``refbench compare``: McNemar).
The instance's text, and so its cache key, changes; the option is recorded with the run
(``reader_options``).
"""

from __future__ import annotations

import dataclasses

from refbench.core.types import Mention
from refbench.tasks.kitmus.instance import KitmusInstance

ABLATIONS = {"background": frozenset({"background_knowledge"}),
             "entity": frozenset({"entity_knowledge"}),
             "both": frozenset({"background_knowledge", "entity_knowledge"})}
NONE = "none"


def ablated(inst: KitmusInstance, ablate: str) -> KitmusInstance:
    """The instance without the sentences ``ablate`` names (mentions renumbered; the
    entities' mentions in removed sentences dropped)."""
    if ablate == NONE:
        return inst
    roles = ABLATIONS[ablate]
    kept = [i for i, s in enumerate(inst.sentences) if s.role not in roles]
    new_index = {old: new for new, old in enumerate(kept)}

    def moved(m: Mention) -> Mention:
        return dataclasses.replace(m, sentence=new_index[m.sentence])

    entities = tuple(dataclasses.replace(e, mentions=tuple(
        moved(m) for m in e.mentions if m.sentence in new_index)) for e in inst.entities)
    return dataclasses.replace(inst, sentences=tuple(inst.sentences[i] for i in kept),
                               entities=entities, pronoun_mention=moved(inst.pronoun_mention),
                               cache={})
