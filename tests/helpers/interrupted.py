"""A real backend with Ctrl-C pressed after some answers: the tests' stand-in for the user, not for the model."""


class InterruptedAfter:
    def __init__(self, backend, answers: int) -> None:
        self.backend, self.answers = backend, answers
        self.name, self.model = backend.name, backend.model
        self.default_concurrency, self.usage, self.priced = backend.default_concurrency, backend.usage, backend.priced
        self.supports_tools = getattr(backend, "supports_tools", False)

    def complete(self, request):
        if self.answers == 0:
            raise KeyboardInterrupt
        self.answers -= 1
        return self.backend.complete(request)
