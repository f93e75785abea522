FROM python:3.11-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends \
      gcc make libc6-dev libmariadb-dev libpq-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN make -C runner/iibench
EXPOSE 8000
