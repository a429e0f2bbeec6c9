/** Small SPMD programs over the unicomm API. */
module dev.unicomm.examples {
    requires dev.unicomm.api;

    exports dev.unicomm.examples;
}
