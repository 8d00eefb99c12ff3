# A real browser for the web page tests (sourced by scripts/services.sh, not run).
#
#   * Debian's chromium and chromium-driver (apt). chromedriver serves W3C WebDriver on
#     the loopback interface only (its default without --allowed-ips, which would make it
#     listen on every interface); the tests start headless chromium sessions
#     through it (--headless --no-sandbox --disable-gpu) and end them (DELETE session),
#     so no browser outlives its test. Exported as AGCORE_TEST_WEBDRIVER_URL.
#
# Uses from services.sh / embedding-servers.sh: STATE, log, apt_install, server_pid,
# stop_server, launch, pick_port, await_server, running_port.
# Tunables: AGCORE_WEBDRIVER_PORT (preferred port, default 59515).

WEBDRIVER_PID="$STATE/chromedriver.pid"
WEBDRIVER_PORT_FILE="$STATE/chromedriver.port"
WEBDRIVER_LOG="$STATE/chromedriver.log"

browser_installed() {
    command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1
}

install_browser() {
    if browser_installed; then
        log "chromium and chromedriver already installed ($(chromedriver --version 2>/dev/null | head -n 1))"
        return
    fi
    apt_install chromium chromium-driver
    browser_installed || die "chromium / chromedriver not found after apt-get install"
}

# webdriver_ready PORT [SECONDS]: GET /status answers ready.
webdriver_ready() {
    curl -fsS --max-time "${2:-5}" "http://127.0.0.1:$1/status" 2>/dev/null | grep -q '"ready": *true'
}

start_browser() {
    install_browser # cheap when already installed
    local port
    port="$(running_port chromedriver "$WEBDRIVER_PID" "$WEBDRIVER_PORT_FILE" chromedriver webdriver_ready)"
    if [ -n "$port" ]; then return; fi
    port="$(pick_port "${AGCORE_WEBDRIVER_PORT:-59515}")"
    log "starting chromedriver on 127.0.0.1:$port (log: $WEBDRIVER_LOG)"
    printf '\n==== %s start port %s\n' "$(date -u +%FT%TZ)" "$port" >>"$WEBDRIVER_LOG"
    launch "$WEBDRIVER_PID" "$WEBDRIVER_LOG" "$(command -v chromedriver)" --port="$port"
    echo "$port" >"$WEBDRIVER_PORT_FILE"
    await_server chromedriver "$port" "$WEBDRIVER_PID" chromedriver "$WEBDRIVER_LOG" webdriver_ready
}

stop_browser() {
    stop_server chromedriver "$WEBDRIVER_PID" chromedriver
    rm -f "$WEBDRIVER_PORT_FILE"
}

# Prints the env line of the WebDriver.
browser_env() {
    echo "AGCORE_TEST_WEBDRIVER_URL=http://127.0.0.1:$(cat "$WEBDRIVER_PORT_FILE")"
}

# Status line; returns 3 when chromedriver is missing or stopped.
browser_status() {
    local pid port
    pid="$(server_pid "$WEBDRIVER_PID" chromedriver)"
    port="$(cat "$WEBDRIVER_PORT_FILE" 2>/dev/null || true)"
    if [ -n "$pid" ] && [ -n "$port" ] && webdriver_ready "$port" 10; then
        echo "chromedriver: running (pid $pid, http://127.0.0.1:$port, log $WEBDRIVER_LOG)"
    else
        echo "chromedriver: stopped or not answering (log $WEBDRIVER_LOG)"
        return 3
    fi
}
