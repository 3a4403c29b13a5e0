"""The REST service: ``memfold serve`` puts one store behind HTTP.

* :mod:`memfold.service.app` builds the FastAPI application over any ``MemoryAPI``;
* :mod:`memfold.service.auth` holds the API keys and the user ids each key may touch;
* :mod:`memfold.service.limits` caps request size and rate;
* :mod:`memfold.service.errors` maps the ``MemfoldError`` tree to HTTP statuses;
* :mod:`memfold.service.server` runs it on uvicorn and announces it in the store directory.

The routes are thin: each one checks the key's scope and calls one ``MemoryAPI`` method.
"""
