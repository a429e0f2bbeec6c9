/** Zero-copy adapters from JavaCPP {@code Pointer}s to unicomm memory and streams. */
module dev.unicomm.interop.javacpp {
    requires transitive dev.unicomm.api;
    requires transitive org.bytedeco.javacpp;

    exports dev.unicomm.interop.javacpp;
}
