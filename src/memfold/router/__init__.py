"""Write routing: one utterance in, FACT / EVENT / DOCUMENT / NONE out, then applied.

    router = Router(OfflineBackend(embedder))
    decisions = router.route_many(messages, contexts)      # decide, store nothing
    with stores.db.transaction():
        stores.log.append(messages)
        for message, decision in zip(messages, decisions):
            apply_decision(stores, message, decision)
"""

from memfold.router.apply import AppliedWrites, apply_decision
from memfold.router.core import Router
from memfold.router.trust import INSTRUCTION_FLAG, looks_like_instruction

__all__ = ["AppliedWrites", "INSTRUCTION_FLAG", "Router", "apply_decision",
           "looks_like_instruction"]
