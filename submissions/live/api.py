"""The live side of the API: witness tokens, and a witness client's open / append / seal.

POST /api/witness-tokens/ {"contest": slug}     (the user's API token) -> 201 {"token"}
DELETE /api/witness-tokens/<id>/                 revoke it
POST /api/live/  {run_key, declaration, machine} (Bearer witness token) -> 201 the run
POST /api/live/<id>/batches/ {seq, lines, machine}                     -> 200 {next_seq}
POST /api/live/<id>/seal/ {exit_status, batches}                       -> 200 the run
GET  /api/live/<id>/?after=<sample id>           progress, for anyone who may see it
"""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from submissions.entries import refusals
from submissions.entries.selectors import seen_or_404
from submissions.entries.trust import TRUST_SENTENCES, entry_trust
from submissions.live import batch_post, selectors, services, throttle
from submissions.live.answers import batch_too_large, cache_down, refused, too_many
from submissions.live.authentication import WitnessTokenAuthentication
from submissions.live.models import LiveRun, WitnessToken
from submissions.live.serializers import (
    LiveBatchSerializer,
    LiveOpenSerializer,
    LiveSealSerializer,
    WitnessTokenCreateSerializer,
    WitnessTokenSerializer,
)
from submissions.web.serializers import SubmissionSerializer
from submissions.web.text_input import TextJSONParser


class WitnessTokenListCreate(APIView):
    """The user's witness tokens (never their keys), and a new one for a contest."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=WitnessTokenSerializer(many=True))
    def get(self, request: Request) -> Response:
        tokens = WitnessToken.objects.filter(user=request.user).select_related("contest")
        return Response(WitnessTokenSerializer(tokens, many=True).data)

    @extend_schema(request=WitnessTokenCreateSerializer, responses={201: WitnessTokenSerializer})
    def post(self, request: Request) -> Response:
        serializer = WitnessTokenCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        contest = serializer.validated_data["contest"]
        if not contest.is_open():
            raise ValidationError({"contest": [str(refusals.ContestClosed(contest))]})
        token, key = services.witness_token_create(user=request.user, contest=contest)
        body = {**WitnessTokenSerializer(token).data, "token": key}
        return Response(body, status=status.HTTP_201_CREATED)


class WitnessTokenDetail(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        token = get_object_or_404(WitnessToken, pk=pk, user=request.user)
        services.witness_token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


MACHINE_SOURCE = "reported by the client, not observed by the registry"


def live_run_body(run: LiveRun, request: Request, after: int = 0) -> dict:
    entry = run.submission
    return {
        "id": run.pk,
        "url": request.build_absolute_uri(run.get_absolute_url()),
        "contest": run.contest.slug,
        "live": run.state(),
        "trust": entry_trust(entry) if entry else None,
        "trust_means": TRUST_SENTENCES[entry_trust(entry)] if entry else None,
        "opened_at": run.opened_at,
        "last_line_at": run.last_line_at,
        "sealed_at": run.sealed_at,
        "exit_status": run.exit_status,
        "next_seq": run.next_seq,
        "lines": run.line_count,
        "rows": run.rows,
        "target_rows": run.contest.target_rows,
        "elapsed_seconds": run.elapsed_seconds,
        "current_rate": run.current_rate,
        "cumulative_rate": run.cumulative_rate,
        **selectors.live_figures(run),
        "machine": run.machine,
        # The registry observes nothing of the machine: these facts are the client's word.
        "machine_source": MACHINE_SOURCE,
        "last_interval": selectors.last_interval(run),
        "seal_verdicts": run.seal_verdicts,
        "seal_message": run.seal_message,
        "entry": (
            SubmissionSerializer(entry, context={"request": request}).data if entry else None
        ),
        "samples": selectors.live_samples(run, after),
    }


class WitnessedView(APIView):
    """A view a witness client calls: its token is the only credential taken."""

    authentication_classes = [WitnessTokenAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes = [TextJSONParser]

    def initial(self, request: Request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)
        if not isinstance(request.auth, WitnessToken):
            raise PermissionDenied("Send a witness token: Authorization: Bearer iiw_...")


class LiveRunOpen(WitnessedView):
    @extend_schema(request=LiveOpenSerializer, responses={201: None, 200: None})
    def post(self, request: Request) -> Response:
        token: WitnessToken = request.auth
        serializer = LiveOpenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        asked = data.pop("contest", None)
        if asked and asked != token.contest.slug:
            raise PermissionDenied(
                f"This witness token streams into {token.contest.slug}, not {asked}."
            )
        try:
            allowed, retry_after = throttle.open_allowed(request.user.pk)
        except throttle.BudgetUnavailable:
            return cache_down()
        if not allowed:
            return too_many(
                f"You opened {settings.LIVE_RUNS_PER_HOUR} live runs this hour, the most we take.",
                retry_after,
            )
        try:
            run, created = services.live_run_open(
                token=token,
                run_key=data.pop("run_key"),
                machine=data.pop("machine", {}),
                command=data.pop("command", ""),
                declared=data,
            )
        except refusals.SubmissionRefused as error:
            raise ValidationError({error.field: [error.message]}) from None
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(live_run_body(run, request), status=code)


class LiveRunBatches(WitnessedView):
    def dispatch(self, request, *args, **kwargs):
        # A plain batch from a usable token is answered on the lean path (batch_post.py).
        lean = batch_post.lean_answer(request, kwargs["pk"])
        return lean if lean is not None else super().dispatch(request, *args, **kwargs)

    @extend_schema(request=LiveBatchSerializer, responses={200: None})
    def post(self, request: Request, pk: int) -> Response:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
        if length > settings.LIVE_BATCH_MAX_BYTES:
            return batch_too_large(length)
        try:
            allowed, retry_after = throttle.batch_allowed(pk)
        except throttle.BudgetUnavailable:
            return cache_down()
        if not allowed:
            return too_many(
                f"More than {settings.LIVE_BATCHES_PER_MINUTE} batches a minute for one run.",
                retry_after,
            )
        serializer = LiveBatchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # Without a Content-Length (a chunked body) the size is known only now.
        size = sum(len(line.encode()) + 1 for line in serializer.validated_data["lines"])
        if size > settings.LIVE_BATCH_MAX_BYTES:
            return batch_too_large(size)
        try:
            appended = services.live_run_append(
                run_id=pk, token=request.auth, **serializer.validated_data
            )
        except services.LiveRefused as error:
            return refused(error)
        return Response(
            {
                "next_seq": appended.next_seq,
                "replayed": appended.replayed,
                "received_at": appended.received_at,
            }
        )


class LiveRunSeal(WitnessedView):
    @extend_schema(request=LiveSealSerializer, responses={200: None})
    def post(self, request: Request, pk: int) -> Response:
        serializer = LiveSealSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            run = services.live_run_seal(run_id=pk, token=request.auth, **serializer.validated_data)
        except services.LiveRefused as error:
            return refused(error)
        return Response(live_run_body(run, request))


class LiveRunDetail(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("after", int, description="Samples after this id only.")],
        responses={200: None},
    )
    def get(self, request: Request, pk: int) -> Response:
        # As for a draft entry: under embargo, whether the run exists is not told either.
        runs = LiveRun.objects.select_related("contest", "submission__contest")
        run = seen_or_404(
            runs, pk, lambda run: selectors.live_run_visible(run, request.user), "live run"
        )
        try:
            after = max(int(request.query_params.get("after", 0)), 0)
        except ValueError:
            raise ValidationError({"after": ["A sample id (a whole number)."]}) from None
        return Response(live_run_body(run, request, after))
