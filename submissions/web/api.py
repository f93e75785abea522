from datetime import datetime

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import (
    APIException,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
    ValidationError,
)
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from submissions import tracks
from submissions.board.cache import board_cache_key, board_stamp, cached_board, kept_body
from submissions.board.query import (
    API_MAX_PAGE_SIZE,
    DRIVE_FILTERS,
    SORTS,
    LeaderboardQuery,
    board_order,
    deepest_page,
)
from submissions.board.reads import leaderboard_page, references_key
from submissions.board.visibility import embargo_notice, leaderboard_visible
from submissions.caches.compiled import reading_ahead
from submissions.contests.rule_versions import contest_rule_set
from submissions.entries import edits, refusals, selectors, services, tokens
from submissions.entries.from_log import declaration_caps
from submissions.entries.logs import log_declaration
from submissions.entries.newest import newest_entries, rows_after
from submissions.entries.outcome import OUTCOME_FIELDS
from submissions.entries.trust import TRUST_SENTENCES
from submissions.measures.costs import PER_ROW_COSTS
from submissions.measures.series import unpack_columns
from submissions.models import Contest, SampleSeries, Submission
from submissions.web import exports
from submissions.web.middleware import too_large_message
from submissions.web.serializers import (
    ContestSerializer,
    DeclarationSerializer,
    LeaderboardSerializer,
    SubmissionCreateSerializer,
    SubmissionSerializer,
    TokenListSerializer,
    TokenObtainSerializer,
    kept_writer,
)
from submissions.web.text_input import TextFormParser, TextJSONParser, TextMultiPartParser
from submissions.web.throttle import (
    UploadRefusal,
    upload_refusal,
    upload_slot,
    upload_stored,
    upload_try,
)


class TokenObtain(ObtainAuthToken):
    """`POST {username, password}` -> `{"token", "expires_at"}` (a new token once the last one
    expired). `DELETE` with the token revokes it. Locked out like the log-in page after too
    many wrong passwords (django-axes marks the request; DRF would otherwise answer a bare 400)."""

    serializer_class = TokenObtainSerializer
    # ObtainAuthToken names DRF's own parsers: these refuse a NUL as every API view does.
    parser_classes = [TextFormParser, TextMultiPartParser, TextJSONParser]

    def post(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        try:
            serializer.is_valid(raise_exception=True)
        except ValidationError:
            if getattr(request, "axes_locked_out", False):
                return Response(
                    {
                        "detail": "Too many failed log-ins: this account is locked for a while from your address."
                    },
                    status=429,
                )
            raise
        token = tokens.api_token_issue(user=serializer.validated_data["user"])
        expires_at = tokens.token_expires_at(token.created)
        return Response({"token": token.key, "expires_at": expires_at})

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        if not tokens.api_token_revoke(user=request.user):
            raise NotFound("You have no API token.")
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenList(APIView):
    """The caller's tokens (API and witness): kind, first characters, created, expiry."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=TokenListSerializer)
    def get(self, request: Request) -> Response:
        return Response(TokenListSerializer({"tokens": tokens.tokens_of(request.user)}).data)


class ContestList(generics.ListAPIView):
    serializer_class = ContestSerializer
    queryset = Contest.objects.all()


# What SubmissionSerializer reads of an entry (its fields, its summary's, the verification
# outcome's, the stream's and the rules' relations, whole) and the list's order: the rest of the
# entry is not read. A column missing here would be read by a query per row (the list's test
# counts them: tests/web/test_api_plain_rows.py).
API_LIST_FIELDS = (
    "id", "contest__slug", "server_family", "server_version", "storage_engine", "engine",
    "eligible", *OUTCOME_FIELDS, "live_run", "rules_version", "edited_at", "verdicts",
    "log_format", "rows", "elapsed_seconds", "elapsed_source", "average_rate", "terminal_rate",
    "terminal_window_rows", "terminal_window_start_row", "terminal_window_basis",
    "seconds_to_target", "estimated", "estimate_basis", "excerpt", "demo", "track_figures",
    "db_size_bytes", *(cost.figure for cost in PER_ROW_COSTS), "submitted_at",
)  # fmt: skip


class UncountedPagination(PageNumberPagination):
    """PageNumberPagination's pages and links without its count of every entry (a scan of the
    registry per request): a page reads one row more than it shows to know whether another
    follows, and `count` is null. Numbered pages go to DEEPEST_ROW (an OFFSET reads every row
    before the page); the `next` link past them, and from any page read by one, is a cursor
    (`?after=`, the last row's time and id), read from the newest-first index (migration 0028)
    whatever its depth. A page read by a cursor has no `previous` link."""

    def paginate_queryset(self, queryset, request, view=None):
        return self.paginate_read(
            lambda start, count, after: list(
                (rows_after(queryset, *after) if after else queryset[start:])[:count]
            ),
            request,
        )

    def paginate_read(self, read, request):
        """The page asked for, of the rows `read(start, count, after)` gives: `count` rows from
        row `start`, or after the cursor's position `after` ((time, id); None: by number)."""
        self.request = request
        size = self.get_page_size(request)
        self.deepest = deepest_page(size)
        after = request.query_params.get(CURSOR)
        self.number = None if after else _positive_page(request, self.deepest)
        if after:
            rows = read(0, size + 1, _cursor_position(after))
        else:
            rows = read((self.number - 1) * size, size + 1, None)
            if not rows and self.number > 1:
                raise NotFound("Invalid page.")  # as PageNumberPagination answers past the end
        self.has_next = len(rows) > size
        self.last = rows[size - 1] if self.has_next else None
        return rows[:size]

    def get_next_link(self):
        if not self.has_next:
            return None
        url = remove_query_param(self.request.build_absolute_uri(), CURSOR)
        if self.number is not None and self.number < self.deepest:
            return replace_query_param(url, self.page_query_param, self.number + 1)
        url = remove_query_param(url, self.page_query_param)
        position = f"{self.last.submitted_at.isoformat()}_{self.last.pk}"
        return replace_query_param(url, CURSOR, position)

    def get_previous_link(self):
        if self.number is None or self.number == 1:
            return None
        url = self.request.build_absolute_uri()
        if self.number == 2:
            return remove_query_param(url, self.page_query_param)
        return replace_query_param(url, self.page_query_param, self.number - 1)

    def get_paginated_response(self, data):
        return Response(
            {
                "count": None,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "results": data,
            }
        )


CURSOR = "after"


def _positive_page(request, deepest: int) -> int:
    text = request.query_params.get("page")
    try:
        number = max(1, int(text or "1"))
    except ValueError:
        raise NotFound("Invalid page.") from None
    if number > deepest:
        raise NotFound(
            f"Invalid page: numbered pages go to {deepest:,}; follow the last one's `next` "
            "link (a cursor) to read further."
        )
    return number


def _cursor_position(text: str) -> tuple:
    when, _, pk = text.rpartition("_")
    try:
        moment = datetime.fromisoformat(when)
        number = int(pk)
    except ValueError:
        raise NotFound("Invalid cursor: follow a `next` link as given.") from None
    if moment.tzinfo is None or not 0 < number < 2**63:
        raise NotFound("Invalid cursor: follow a `next` link as given.")
    return moment, number


class LogTooLargeError(APIException):
    """A log refused for the work reading it would take: 413, as an upload past its size."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE

    def __init__(self, message: str):
        super().__init__({"log": [message]})


def too_many_response(refusal: UploadRefusal) -> Response:
    headers = {"Retry-After": str(refusal.retry_after)}
    return Response({"detail": refusal.message}, status=refusal.status, headers=headers)


class SubmissionListCreate(APIView):
    parser_classes = [TextMultiPartParser, TextFormParser]

    @extend_schema(responses=SubmissionSerializer(many=True))
    def get(self, request: Request) -> Response:
        # The columns SubmissionSerializer writes, not the entry's seventy, with each row's
        # contest, rules and stream, newest first (migration 0028's index): a statement
        # compiled once per process (entries/newest.py).
        paginator = UncountedPagination()
        page = paginator.paginate_read(
            lambda start, count, after: newest_entries(
                request.user, API_LIST_FIELDS, start=start, count=count, after=after
            ),
            request,
        )
        # The same rows as SubmissionSerializer(page, many=True).data, written plainly.
        write = kept_writer(SubmissionSerializer, {"request": request})
        return paginator.get_paginated_response([write(entry) for entry in page])

    @extend_schema(request=SubmissionCreateSerializer, responses={201: SubmissionSerializer})
    def post(self, request: Request) -> Response:
        refusal = upload_refusal(request.user)
        if refusal:
            return too_many_response(refusal)
        log = request.FILES.get("log")
        if log is not None and log.size > settings.LOG_UPLOAD_MAX_BYTES:
            # Checked before validation: DRF would fold it into a 400 with the other fields.
            return Response({"log": [too_large_message(log.size)]}, status=413)
        with upload_slot(request.user) as slot:
            if slot.refusal:
                return too_many_response(slot.refusal)
            upload_try(request.user)
            submission = self._store(request)
        upload_stored(request.user)
        body = SubmissionSerializer(submission, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)

    def _store(self, request: Request) -> Submission:
        serializer = SubmissionCreateSerializer(data=request.data)
        if not serializer.is_valid():
            raise ValidationError(serializer.errors)
        data = dict(serializer.validated_data)
        try:
            return services.entry_create(
                contest=data.pop("contest"),
                owner=request.user,
                declared=data,
                log_file=data.pop("log", None),
                log_seconds=settings.LOG_PARSE_SECONDS,
            )
        except refusals.DuplicateLog as duplicate:
            url = request.build_absolute_uri(duplicate.existing.get_absolute_url())
            raise ValidationError({"log": [f"{duplicate.message} {url}"]}) from None
        except refusals.LogTooLarge as too_large:
            raise LogTooLargeError(too_large.message) from None
        except refusals.SubmissionRefused as refused:
            raise ValidationError({refused.field: [refused.message]}) from None


class SubmissionPreview(APIView):
    """`POST` a log (multipart `log`, optional `contest` slug): the declaration fields it states,
    `{"from_log": {field: value}, "sources": {field: "line 25: # machine cores 2"}}`, read as
    an upload is read (the same caps and refusals naming the line) and stored nowhere. With a
    contest, its caps beside the fields they limit (`caps`)."""

    parser_classes = [TextMultiPartParser, TextFormParser]
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {
                    "log": {"type": "string", "format": "binary"},
                    "contest": {"type": "string"},
                },
                "required": ["log"],
            }
        },
        responses={200: OpenApiTypes.OBJECT},
    )
    def post(self, request: Request) -> Response:
        refusal = upload_refusal(request.user)
        if refusal:
            return too_many_response(refusal)
        contest = None
        slug = str(request.data.get("contest") or "").strip()
        if slug:
            contest = Contest.objects.filter(slug=slug).first()
            if contest is None:
                raise ValidationError({"contest": [f"No contest '{slug}'."]})
        log = request.FILES.get("log")
        if log is None:
            raise ValidationError({"log": ["Attach the log (multipart field `log`)."]})
        if log.size > settings.LOG_UPLOAD_MAX_BYTES:
            return Response({"log": [too_large_message(log.size)]}, status=413)
        if log.size == 0:
            raise ValidationError({"log": ["The file is empty: attach the iiBench output."]})
        track = contest.track if contest is not None else tracks.DEFAULT_TRACK
        # As an upload: one read at a time per user, counted before it starts (a preview
        # stores nothing, so its count is never given back).
        with upload_slot(request.user) as slot:
            if slot.refusal:
                return too_many_response(slot.refusal)
            upload_try(request.user)
            try:
                found = log_declaration(track=track, log_file=log)
            except refusals.LogTooLarge as too_large:
                raise LogTooLargeError(too_large.message) from None
            except refusals.SubmissionRefused as refused:
                raise ValidationError({refused.field: [refused.message]}) from None
        body = {"log_format": found.log_format, "from_log": found.values, "sources": found.sources}
        if contest is not None:
            body["caps"] = declaration_caps(contest_rule_set(contest))
        return Response(body)


class SubmissionDetail(APIView):
    def _get(self, request: Request, pk: int) -> Submission:
        # Its stream with it (the live wing's, which its trust level reads): one query.
        entries = Submission.objects.select_related("contest", "rules_version", "live_run")
        # 404, not 403: an entry under embargo does not exist for those who may not see it.
        return selectors.entry_seen_by(request.user, pk, entries)

    @extend_schema(responses=SubmissionSerializer)
    def get(self, request: Request, pk: int) -> Response:
        # The entry, its contest, rules and stream in one round trip of statements compiled
        # once per process; written as SubmissionSerializer writes it, its fields set up once.
        with reading_ahead([]):
            submission = selectors.entry_seen_at_once(request.user, pk)
        write = kept_writer(SubmissionSerializer, {"request": request})
        return Response(write(submission))

    @extend_schema(request=DeclarationSerializer, responses=SubmissionSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        submission = self._get(request, pk)
        if not selectors.entry_editable(submission, request.user):
            raise PermissionDenied(
                "Only the entrant can change an entry, and only until the deadline."
            )
        serializer = DeclarationSerializer(submission, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        submission.refresh_from_db()
        try:
            outcome = edits.entry_edit(
                submission=submission, declared=dict(serializer.validated_data), by=request.user
            )
        except refusals.SubmissionRefused as refused:
            raise ValidationError({refused.field: [refused.message]}) from None
        submission.refresh_from_db()
        body = SubmissionSerializer(submission, context={"request": request}).data
        if outcome.pending is not None:
            # Accepted, not applied: the entry stays as published until an organizer decides.
            body["pending_change"] = {
                "id": outcome.pending.pk,
                "changes": outcome.pending.changes,
                "effects": outcome.pending.effects,
            }
            return Response(body, status=status.HTTP_202_ACCEPTED)
        return Response(body)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        submission = self._get(request, pk)
        if not selectors.entry_editable(submission, request.user):
            raise PermissionDenied(
                "Only the entrant can delete an entry, and only until the deadline."
            )
        services.entry_delete(submission=submission)
        return Response(status=status.HTTP_204_NO_CONTENT)


LEADERBOARD_PARAMETERS = [
    OpenApiParameter(
        "sort",
        str,
        description=f"One of {', '.join(SORTS)} (a track's board: rank, metric, "
        "class, entrant, engine, hardware, verified); -name reverses.",
    ),
    OpenApiParameter("engine", str, description="Storage engine, any case."),
    OpenApiParameter(
        "drive",
        str,
        enum=list(DRIVE_FILTERS),
        description="A drive kind, or virtual: a volume not directly attached, any kind.",
    ),
    OpenApiParameter(
        "cpu", str, description='A CPU model; its spellings too ("AMD EPYC (virtual, 2 vCPUs)").'
    ),
    OpenApiParameter("cores", int, description="Cores in total."),
    OpenApiParameter("memory", float, description="Memory, GB."),
    OpenApiParameter("verified", bool, description="1: only entries a rerun reproduced."),
    OpenApiParameter(
        "trust",
        str,
        enum=["self-reported", "streamed", "verified"],
        description="Only entries of this trust level (the retired word `witnessed` is read "
        "as `streamed`). " + " ".join(TRUST_SENTENCES.values()),
    ),
    OpenApiParameter("page", int),
    OpenApiParameter("page_size", int, description=f"At most {API_MAX_PAGE_SIZE:,}."),
]


class ContestLeaderboard(APIView):
    """A contest's board: ranked entries with the seeds' reference rows among them
    (`"reference": true, "rank": null`), then the entries that are not ranked (`"rank": null`).
    Organizers-only until the contest publishes its results."""

    def dispatch(self, request, *args, **kwargs):
        # A board as JSON for a reader without a token who asks for JSON, kept by this process
        # or built: the same bytes and headers as `get` answers, without DRF's negotiation,
        # authentication and request wrapping, which cost as much as the rest of a kept
        # board's request (README "Speed") and a tenth of a built one's. Without a token DRF
        # reads the same user as Django (the session's), so the board is the same. Anything
        # else (a token, another format, an embargo) goes the whole way.
        self._stamp = board_stamp(kwargs["slug"])
        if (
            self._stamp is not None
            and request.method == "GET"
            and "HTTP_AUTHORIZATION" not in request.META
            and request.GET.get("format", "json") == "json"
            and request.META.get("HTTP_ACCEPT", "*/*") in ("*/*", "application/json")
        ):
            key = board_cache_key("api-json", self._stamp, request)
            kept = kept_body(key) or self._json_body(request, key)
            if kept[0]:
                response = HttpResponse(kept[1], content_type="application/json")
                for header, value in self.default_response_headers.items():
                    response[header] = value
                return response
        return super().dispatch(request, *args, **kwargs)

    def _json_body(self, request, key: str) -> tuple[bool, bytes | str]:
        return cached_board(
            key,
            self._stamp,
            lambda contest: self._rendered_body(request, contest, JSONRenderer()),
            immutable=True,
            reads=lambda contest_id: [references_key(contest_id)],
        )

    @extend_schema(parameters=LEADERBOARD_PARAMETERS, responses=LeaderboardSerializer)
    def get(self, request: Request, slug: str) -> Response | HttpResponse:
        stamp = self._stamp
        if stamp is None:
            raise NotFound("No such contest.")
        renderer = request.accepted_renderer
        if isinstance(renderer, JSONRenderer):
            # JSON is kept rendered: a 1,000-row page cost 20 ms to encode and 4 ms to unpickle
            # as rows on every request; as bytes the process can keep it (immutable).
            key = board_cache_key("api-json", stamp, request)
            visible, body = cached_board(
                key, stamp, lambda c: self._rendered_body(request, c, renderer), immutable=True
            )
            if not visible:
                raise PermissionDenied(body)
            return HttpResponse(body, content_type=renderer.media_type)
        key = board_cache_key(f"api-{renderer.format}", stamp, request)
        visible, body = cached_board(key, stamp, lambda c: self._visible_body(request, c))
        if not visible:
            raise PermissionDenied(body)
        return Response(body)

    def _rendered_body(
        self, request: Request, contest: Contest, renderer: JSONRenderer
    ) -> tuple[bool, bytes | str]:
        visible, body = self._visible_body(request, contest)
        return visible, renderer.render(body) if visible else body

    def _visible_body(self, request: Request, contest: Contest) -> tuple[bool, dict | str]:
        if not leaderboard_visible(contest, request.user):
            return False, embargo_notice(contest)
        return True, self._body(request, contest)

    def _body(self, request: Request, contest: Contest) -> dict:
        # `GET`: a DRF request's query_params, or a plain Django request's (`dispatch`).
        query = LeaderboardQuery.from_params(
            request.GET,
            max_page_size=API_MAX_PAGE_SIZE,
            order=board_order(contest.track),
        )
        board = leaderboard_page(contest=contest, query=query)
        # Plain dicts, not a serializer per row: a page holds up to 1,000 rows.
        return {
            # A filtered board is counted up to the deepest row served (DEEPEST_ROW): past
            # it, the count is not known (null), as the registry's list's never is.
            "count": None if board.count_capped else board.count,
            "next": self._page_link(request, board.page + 1) if board.has_next else None,
            "previous": self._page_link(request, board.page - 1) if board.has_previous else None,
            "results": [exports.leaderboard_row_data(row) for row in board.rows],
        }

    def _page_link(self, request: Request, page: int) -> str:
        params = request.GET.copy()
        params["page"] = str(page)
        return request.build_absolute_uri(f"{request.path}?{params.urlencode()}")


class CSVRenderer(BaseRenderer):
    """Lets `?format=csv` (and Accept: text/csv) through content negotiation; the view streams
    the body itself."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data


class SubmissionSamples(APIView):
    """Every sample of an entry's series as columns (JSON), or as CSV with `?format=csv`.
    Streamed: a 2,000,000-sample run is never one string in memory."""

    renderer_classes = [JSONRenderer, CSVRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["json", "csv"])],
        responses={(200, "application/json"): OpenApiTypes.OBJECT, (200, "text/csv"): str},
    )
    def get(self, request: Request, pk: int, format: str | None = None) -> StreamingHttpResponse:
        submission = selectors.entry_seen_by(request.user, pk)
        try:
            series = SampleSeries.objects.only("columns").get(submission=submission)
        except SampleSeries.DoesNotExist:
            raise NotFound("This entry has no sample series.") from None
        columns = unpack_columns(series.columns)
        if request.accepted_renderer.format == "csv":
            response = StreamingHttpResponse(
                exports.samples_csv_chunks(columns), content_type="text/csv; charset=utf-8"
            )
            response["Content-Disposition"] = f'attachment; filename="entry-{pk}-samples.csv"'
            return response
        return StreamingHttpResponse(
            exports.samples_json_chunks(pk, columns), content_type="application/json"
        )
