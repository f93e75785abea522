from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from runner import fleet, host_board, selectors, services
from runner.models import VerificationRun
from runner.serializers import RerunRequestSerializer, RerunSampleSerializer, RerunSerializer
from submissions.board.visibility import require_visible_board
from submissions.entries.selectors import seen_or_404
from submissions.models import Contest, Submission


def _visible_run(request: Request, pk: int) -> VerificationRun:
    # 404 like its entry: a rerun of an entry under embargo does not exist for this user.
    runs = VerificationRun.objects.select_related("submission__contest")
    return seen_or_404(runs, pk, lambda run: selectors.run_visible(run, request.user), "rerun")


class RerunStart(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(request=RerunRequestSerializer, responses={202: RerunSerializer})
    def post(self, request: Request, pk: int) -> Response:
        submission = get_object_or_404(Submission, pk=pk)
        serializer = RerunRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            run = services.rerun_start(
                submission=submission, requested_by=request.user, **serializer.validated_data
            )
        except services.RerunRefused as refused:
            raise ValidationError({refused.field: [refused.message]}) from None
        body = RerunSerializer(run, context={"request": request}).data
        keys = ("id", "url", "status", "kind", "scale", "repeats", "rows_target", "warning")
        return Response({key: body[key] for key in keys}, status=202)


class RerunDetail(APIView):
    @extend_schema(responses=RerunSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(
            RerunSerializer(_visible_run(request, pk), context={"request": request}).data
        )


class RerunCancel(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(request=None, responses={202: RerunSerializer})
    def post(self, request: Request, pk: int) -> Response:
        run = services.rerun_cancel(run=get_object_or_404(VerificationRun, pk=pk))
        return Response(
            RerunSerializer(run, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
        )


class RerunSamples(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("after", int, description="Only samples past this many rows."),
            OpenApiParameter(
                "after_id",
                int,
                description="Only samples stored after the one with this id: what a page "
                "polling a rerun of several steps (whose rows start again) asks for.",
            ),
        ],
        responses=RerunSampleSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        run = _visible_run(request, pk)
        samples = run.samples.filter(
            rows__gt=_whole_number(request, "after"), id__gt=_whole_number(request, "after_id")
        )[:5_000]
        return Response(RerunSampleSerializer(samples, many=True).data)


def _whole_number(request: Request, name: str) -> int:
    try:
        return int(request.query_params.get(name, 0))
    except ValueError:
        raise ValidationError({name: ["A whole number."]}) from None


class HostBoard(APIView):
    """The contest's host board: its runs at the standard verification scale, per host."""

    @extend_schema(
        parameters=[
            OpenApiParameter("host", str, description="Only this host's runs."),
            OpenApiParameter(
                "sort", str, description="A column, -column for descending (seconds_at_scale)."
            ),
        ],
        responses=dict,
    )
    def get(self, request: Request, slug: str) -> Response:
        contest = get_object_or_404(Contest, slug=slug)
        require_visible_board(contest, request.user)
        try:
            rows = host_board.host_board(
                contest,
                host=request.query_params.get("host", ""),
                sort=request.query_params.get("sort", host_board.DEFAULT_SORT),
            )
        except ValueError as error:
            raise ValidationError({"sort": str(error)}) from error
        return Response(
            {
                "contest": contest.slug,
                "scale": contest.verification_scale,
                "hosts": host_board.hosts_of(contest),
                "count": len(rows),
                "results": [host_board.row_data(row) for row in rows],
            }
        )


class VerificationHosts(APIView):
    """The registered verification hosts: their facts, queues, runs and when last seen.
    Organizers only, like starting a rerun: it names the machines that run them."""

    permission_classes = [IsAdminUser]

    @extend_schema(responses=dict)
    def get(self, request: Request) -> Response:
        rows = fleet.host_rows()
        return Response({"count": len(rows), "results": [fleet.host_data(row) for row in rows]})
