from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from submissions import selectors, services
from submissions.middleware import too_large_message
from submissions.models import Contest, Submission
from submissions.serializers import (
    ContestSerializer,
    DeclarationSerializer,
    SubmissionCreateSerializer,
    SubmissionSerializer,
)
from submissions.throttle import too_many_message, upload_allowed


class TokenObtain(ObtainAuthToken):
    """`POST {username, password}` -> `{"token"}`. Locked out like the log-in page after too many
    wrong passwords (django-axes marks the request; DRF would otherwise answer a bare 400)."""

    def post(self, request: Request, *args, **kwargs) -> Response:
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            if getattr(request, "axes_locked_out", False):
                return Response(
                    {
                        "detail": "Too many failed log-ins: this account is locked for a while from your address."
                    },
                    status=429,
                )
            raise


class ContestList(generics.ListAPIView):
    serializer_class = ContestSerializer
    queryset = Contest.objects.all()


class SubmissionListCreate(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses=SubmissionSerializer(many=True))
    def get(self, request: Request) -> Response:
        entries = selectors.submissions_visible_to(request.user).defer(*selectors.LIST_DEFERRED[:2])
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(entries.order_by("-submitted_at"), request, view=self)
        data = SubmissionSerializer(page, many=True, context={"request": request}).data
        return paginator.get_paginated_response(data)

    @extend_schema(request=SubmissionCreateSerializer, responses={201: SubmissionSerializer})
    def post(self, request: Request) -> Response:
        allowed, retry_after = upload_allowed(request.user)
        if not allowed:
            body = {"detail": too_many_message(retry_after)}
            return Response(body, status=429, headers={"Retry-After": str(retry_after)})
        log = request.FILES.get("log")
        if log is not None and log.size > settings.LOG_UPLOAD_MAX_BYTES:
            # Checked before validation: DRF would fold it into a 400 with the other fields.
            return Response({"log": [too_large_message(log.size)]}, status=413)
        serializer = SubmissionCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        try:
            submission = services.submission_create(
                contest=data.pop("contest"),
                owner=request.user,
                declared=data,
                log_file=data.pop("log"),
            )
        except services.DuplicateLog as duplicate:
            url = request.build_absolute_uri(duplicate.existing.get_absolute_url())
            raise ValidationError({"log": [f"{duplicate.message} {url}"]}) from None
        except services.SubmissionRefused as refused:
            raise ValidationError({refused.field: [refused.message]}) from None
        body = SubmissionSerializer(submission, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)


class SubmissionDetail(APIView):
    def _get(self, request: Request, pk: int) -> Submission:
        submission = get_object_or_404(Submission.objects.select_related("contest"), pk=pk)
        if not selectors.submission_visible(submission, request.user):
            raise PermissionDenied("This entry is not published yet.")
        return submission

    @extend_schema(responses=SubmissionSerializer)
    def get(self, request: Request, pk: int) -> Response:
        submission = self._get(request, pk)
        return Response(SubmissionSerializer(submission, context={"request": request}).data)

    @extend_schema(request=DeclarationSerializer, responses=SubmissionSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        submission = self._get(request, pk)
        if not selectors.submission_editable(submission, request.user):
            raise PermissionDenied(
                "Only the entrant can change an entry, and only until the deadline."
            )
        serializer = DeclarationSerializer(submission, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        submission.refresh_from_db()
        services.submission_update(submission=submission, declared=dict(serializer.validated_data))
        return Response(SubmissionSerializer(submission, context={"request": request}).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        submission = self._get(request, pk)
        if not selectors.submission_editable(submission, request.user):
            raise PermissionDenied(
                "Only the entrant can delete an entry, and only until the deadline."
            )
        services.submission_delete(submission=submission)
        return Response(status=status.HTTP_204_NO_CONTENT)
