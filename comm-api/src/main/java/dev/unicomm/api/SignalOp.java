package dev.unicomm.api;

/** How put-with-signal updates the 64-bit signal word once the data is delivered. */
public enum SignalOp {
    /** The signal word becomes the value. */
    SET,
    /** The value is atomically added to the signal word. */
    ADD
}
