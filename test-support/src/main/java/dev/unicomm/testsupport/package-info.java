/**
 * Harnesses for unicomm's own tests (a test-scope dependency; not published): {@link
 * dev.unicomm.testsupport.MemoryStore} (an in-memory multi-rank rendezvous store), {@link
 * dev.unicomm.testsupport.ThreadJob} (N ranks as threads over a backend of the caller's choice),
 * {@link dev.unicomm.testsupport.ProcessJob} (N ranks as processes with their output kept), {@link
 * dev.unicomm.testsupport.ConsoleCapture} (a command's stdout and stderr), {@link dev.unicomm.testsupport.ProseList}
 * (items of a list written in a doc or help text), {@link dev.unicomm.testsupport.EndpointPair} (two connected
 * endpoints and the checks every backend's endpoints share), and in {@code threads} an
 * in-JVM backend double for code that runs over any backend (the portable collectives).
 */
package dev.unicomm.testsupport;
