/**
 * Internal, not API: the validating layer that stands between users and backends. Every argument is
 * checked here, once, for every backend; calls that must match across ranks are compared here
 * ({@link dev.unicomm.internal.checked.CallLedger}); the JFR events are emitted here. Exported only to
 * unicomm's own modules; users reach it through {@link dev.unicomm.api.Unicomm}.
 */
package dev.unicomm.internal.checked;
