package dev.unicomm.backend.fixtureb;

import org.bytedeco.javacpp.Pointer;

/** Deliberately bad fixture: JavaCPP and a JNI method outside an internal package. */
public class LeakyNativeBinding {
    public Pointer pointer() {
        return new Pointer();
    }

    public static native int leakyNativeCall();
}
