package dev.unicomm.api;

/** A native library call returned an error; names the call, the code and the code's name. */
public final class NativeCallException extends CommException {
    private final String call;
    private final long code;

    public NativeCallException(String call, long code, String codeName) {
        super(call + " failed: " + codeName + " (" + code + ")");
        this.call = call;
        this.code = code;
    }

    /** The native function that failed. */
    public String call() {
        return call;
    }

    /** Its return or error code. */
    public long code() {
        return code;
    }
}
