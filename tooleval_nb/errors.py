"""The exception tree of tooleval_nb.

Every error the toolkit raises on purpose derives from :class:`ToolEvalError`::

    ToolEvalError
    ├── SuiteError              a suite, case or tool that cannot be loaded or is inconsistent
    │                           (names the file, the case and the field)
    ├── ScoringError            a scoring configuration that cannot be applied
    │   └── RegexTimeoutError   a regex that did not finish within its time bound
    ├── ParserError             an unknown parser format or a parser used wrongly
    │                           (malformed *model text* is never an exception: it is a result)
    ├── ModelError              a model call that failed after its retries
    │   ├── ModelConfigError    bad model name, missing key, missing optional dependency
    │   ├── ModelAuthError      401/403 from a provider
    │   ├── ModelBadRequestError 400-class answers (including unsupported parameters)
    │   ├── ModelNotFoundError  404: unknown model or endpoint
    │   ├── ModelRateLimitError 429
    │   ├── ModelTimeoutError   the request did not finish in time
    │   ├── ModelConnectionError the endpoint could not be reached
    │   ├── ModelServerError    5xx from the provider
    │   └── ModelResponseError  a reply that could not be understood
    ├── EmbeddedModelError      the embedded llama.cpp model could not be found or started
    ├── StoreError              the SQLite run store is unusable or a run/job id is unknown
    ├── JobError                a background job failed; ``JobCancelled`` when it was cancelled
    │   └── JobCancelled
    ├── MCPImportError          an MCP server that could not be reached or listed
    ├── ClusterError            the Ray executor cannot run: Ray missing, cluster unreachable,
    │                           or every replica of a model died
    └── ExperimentError         an experiment, sweep, tune or judge report that cannot proceed
"""

from __future__ import annotations

__all__ = [
    "ToolEvalError",
    "SuiteError",
    "ScoringError",
    "RegexTimeoutError",
    "ParserError",
    "ModelError",
    "ModelConfigError",
    "ModelAuthError",
    "ModelBadRequestError",
    "ModelNotFoundError",
    "ModelRateLimitError",
    "ModelTimeoutError",
    "ModelConnectionError",
    "ModelServerError",
    "ModelResponseError",
    "EmbeddedModelError",
    "StoreError",
    "JobError",
    "JobCancelled",
    "MCPImportError",
    "ExperimentError",
    "ClusterError",
]


class ToolEvalError(Exception):
    """Base class of every error tooleval_nb raises on purpose."""


class SuiteError(ToolEvalError):
    """A suite file, case or tool is invalid.

    ``problems`` holds every problem found (not just the first), each a full sentence that names
    the file, the case (index and name) and the field.
    """

    def __init__(self, message: str, problems: list[str] | None = None, path: str | None = None):
        self.problems = list(problems) if problems else [message]
        self.path = path
        super().__init__(message)


class ScoringError(ToolEvalError):
    """A scoring mode or configuration cannot be applied."""


class RegexTimeoutError(ScoringError):
    """A regular expression did not finish within its time bound (catastrophic backtracking)."""


class ParserError(ToolEvalError):
    """An unknown parser format, or a parser used against its protocol."""


class ModelError(ToolEvalError):
    """A model call failed after its retries. ``status_code`` and ``retry_after`` when known."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        retry_after: float | None = None,
        model: str | None = None,
    ):
        self.status_code = status_code
        self.retry_after = retry_after
        self.model = model
        super().__init__(message)

    #: whether the runner should retry this error
    retryable: bool = False


class ModelConfigError(ModelError):
    """Bad model name, missing credentials, or a missing optional dependency."""


class ModelAuthError(ModelError):
    """The provider refused the credentials (401/403)."""


class ModelBadRequestError(ModelError):
    """The provider rejected the request (400-class), e.g. an unsupported parameter."""


class ModelNotFoundError(ModelError):
    """Unknown model or endpoint (404)."""


class ModelRateLimitError(ModelError):
    """Rate limited (429)."""

    retryable = True


class ModelTimeoutError(ModelError):
    """The request did not finish within its timeout."""

    retryable = True


class ModelConnectionError(ModelError):
    """The endpoint could not be reached."""

    retryable = True


class ModelServerError(ModelError):
    """The provider failed (5xx)."""

    retryable = True


class ModelResponseError(ModelError):
    """The provider's reply could not be understood (malformed body)."""

    retryable = True


class EmbeddedModelError(ToolEvalError):
    """The embedded SmolLM2 model or its llama.cpp server could not be found or started."""


class StoreError(ToolEvalError):
    """The SQLite run store is unusable, or a run / job id is unknown."""


class JobError(ToolEvalError):
    """A background job failed."""


class JobCancelled(JobError):
    """The job was cancelled; the cases finished before cancellation are kept."""


class MCPImportError(ToolEvalError):
    """An MCP server could not be reached, timed out, or listed no usable tools."""


class ExperimentError(ToolEvalError):
    """An experiment, sweep, prompt tune or judge report cannot proceed."""


class ClusterError(ToolEvalError):
    """The Ray executor cannot run: Ray is not installed, the cluster cannot be reached, or
    every replica of a model died."""
