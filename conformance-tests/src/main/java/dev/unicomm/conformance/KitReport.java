package dev.unicomm.conformance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The result of a kit run against one backend: one entry per rule, what a vendor attaches to a
 * release. {@link #table()} is for people, {@link #json()} for tools.
 *
 * @param backend  the backend's name
 * @param version  the backend's version
 * @param capabilities what the backend declares (optional rules are skipped by these)
 * @param ranks    ranks per job
 * @param started  when the run began
 * @param entries  one per rule, in run order
 * @param logDir   the folder of the worker JVMs' logs (one file per job)
 * @param provenance which kit, rule set, unicomm version and settings produced the report
 */
public record KitReport(
        String backend,
        String version,
        List<String> capabilities,
        int ranks,
        Instant started,
        List<Entry> entries,
        String logDir,
        Provenance provenance) {

    /** A report without explicit provenance: this kit's versions and rule set, no recorded settings. */
    public KitReport(
            String backend,
            String version,
            List<String> capabilities,
            int ranks,
            Instant started,
            List<Entry> entries,
            String logDir) {
        this(backend, version, capabilities, ranks, started, entries, logDir, Provenance.of(Map.of(), List.of()));
    }

    /**
     * The level a run reached, from lowest to highest. Only a run of every rule of every default suite
     * can certify; a failed rule, required or optional (a declared capability that does not work), fails it.
     */
    public enum Certification {
        /** The kit itself could not run (no worker class path, the launcher rejected the job): says nothing about the backend. */
        TOOL_FAILURE,
        /** Some rule failed. */
        NOT_CERTIFIED,
        /**
         * Nothing failed, but not every rule of the kit ran (a --suite or --rule selection, or a backend's own
         * subset, or rules its {@link KitPlug} marks untested).
         */
        PARTIAL_RUN,
        /** Every rule ran and none failed, but some required rules did not apply at this rank count. */
        REQUIRED_AT_THIS_SIZE_ONLY,
        /** Every required rule passed; optional rules were skipped for capabilities the backend does not declare. */
        REQUIRED,
        /** Every rule of the kit, required and optional, passed. */
        FULL
    }

    /** A rule's result. */
    public enum Result {
        PASSED,
        FAILED,
        SKIPPED
    }

    /**
     * One rule.
     *
     * @param suite  the suite class's simple name
     * @param rule   the rule id (the test method's name)
     * @param result passed, failed, or skipped
     * @param reason why it failed or was skipped ("" if it passed)
     * @param time   wall time of the rule in the parent
     * @param clause the clause of docs/spec/semantics.md the rule verifies ("" if none)
     * @param algorithms which algorithms the rule's collective and MoE calls ran on the ranks
     *               ({@code "allreduce/two_level=4, allreduce/inline=6"}, from {@link dev.unicomm.api.Communicator#algorithmCounts()};
     *               "" if the rule made none or the backend does not say)
     */
    public record Entry(
            String suite, String rule, Result result, String reason, Duration time, String clause, String algorithms) {
        /** An entry without algorithm counts. */
        public Entry(String suite, String rule, Result result, String reason, Duration time, String clause) {
            this(suite, rule, result, reason, time, clause, "");
        }

        /** An entry without a clause (suite set-up failures). */
        public Entry(String suite, String rule, Result result, String reason, Duration time) {
            this(suite, rule, result, reason, time, "");
        }

        /** Whether the rule was skipped because the job had too few ranks for its check ({@link NotApplicable#unlessRanks}). */
        public boolean needsMoreRanks() {
            return result == Result.SKIPPED && reason.startsWith(NotApplicable.TOO_FEW_RANKS);
        }

        /** Whether the rule was skipped because the backend's {@link KitPlug} marks it untested. */
        public boolean untested() {
            return result == Result.SKIPPED && reason.startsWith(KitPlug.Untested.PREFIX);
        }

        /** {@code required} or {@code optional}, from the rule id. */
        public String level() {
            return rule.startsWith("optional_") ? "optional" : rule.startsWith("required_") ? "required" : "-";
        }
    }

    public KitReport {
        capabilities = List.copyOf(capabilities);
        entries = List.copyOf(entries);
    }

    /** The rules of the kit's default run that this report has no entry for (empty for a whole-kit run). */
    public List<String> rulesNotRun() {
        java.util.Set<String> ran = entries.stream().map(Entry::rule).collect(Collectors.toSet());
        return KitSuites.defaultRun().stream()
                .flatMap(s -> KitSuites.rules(s).stream())
                .filter(r -> !ran.contains(r))
                .sorted()
                .toList();
    }

    /** The level this run reached. */
    public Certification certification() {
        if (entries.stream()
                .anyMatch(e -> e.result() == Result.FAILED && e.reason().contains(KitToolException.PREFIX)))
            return Certification.TOOL_FAILURE;
        if (count(Result.FAILED) > 0) return Certification.NOT_CERTIFIED;
        // a rule the backend's plug marks untested did not run: the plug cannot make the kit claim it
        if (!rulesNotRun().isEmpty() || entries.stream().anyMatch(Entry::untested)) return Certification.PARTIAL_RUN;
        // a rule whose check needs more ranks did not run at this size, optional or not: the level must not claim it
        if (entries.stream()
                .anyMatch(e -> e.result() == Result.SKIPPED && (e.level().equals("required") || e.needsMoreRanks())))
            return Certification.REQUIRED_AT_THIS_SIZE_ONLY;
        return count(Result.SKIPPED) > 0 ? Certification.REQUIRED : Certification.FULL;
    }

    /** One line: the level and what it rests on. */
    public String certificationLine() {
        Certification c = certification();
        long req = entries.stream().filter(e -> e.level().equals("required")).count();
        long reqFailed = entries.stream()
                .filter(e -> e.level().equals("required") && e.result() == Result.FAILED)
                .count();
        long opt = entries.stream().filter(e -> e.level().equals("optional")).count();
        long optPassed = entries.stream()
                .filter(e -> e.level().equals("optional") && e.result() == Result.PASSED)
                .count();
        String detail =
                switch (c) {
                    case TOOL_FAILURE ->
                        "the kit could not run its rules, which says nothing about the backend: "
                                + entries.stream()
                                        .filter(e -> e.reason().contains(KitToolException.PREFIX))
                                        .findFirst()
                                        .map(e -> e.reason().lines().findFirst().orElse(""))
                                        .orElse("");
                    case NOT_CERTIFIED -> count(Result.FAILED) + " rules failed (" + reqFailed + " required)";
                    case PARTIAL_RUN ->
                        entries.stream().anyMatch(Entry::untested)
                                        && rulesNotRun().isEmpty()
                                ? entries.stream().filter(Entry::untested).count()
                                        + " rules untested on this backend (its kit plug says why)"
                                : rulesNotRun().size() + " rules of the kit did not run; run every suite to certify";
                    case REQUIRED_AT_THIS_SIZE_ONLY ->
                        entries.stream()
                                        .filter(e -> e.result() == Result.SKIPPED
                                                && (e.level().equals("required") || e.needsMoreRanks()))
                                        .count()
                                + " rules did not apply at " + ranks
                                + " ranks ("
                                + entries.stream()
                                        .filter(Entry::needsMoreRanks)
                                        .map(Entry::rule)
                                        .limit(4)
                                        .collect(Collectors.joining(", "))
                                + (entries.stream()
                                                        .filter(Entry::needsMoreRanks)
                                                        .count()
                                                > 4
                                        ? ", ..."
                                        : "") + "); run again with more ranks";
                    case REQUIRED, FULL ->
                        "all " + req + " required rules passed; " + optPassed + " of " + opt + " optional rules passed";
                };
        return "certification: " + c + " at " + ranks + " ranks (" + detail + ")";
    }

    /** Number of entries with {@code r}. */
    public long count(Result r) {
        return entries.stream().filter(e -> e.result() == r).count();
    }

    /** Whether no rule failed (and at least one ran). */
    public boolean passed() {
        return count(Result.FAILED) == 0 && !entries.isEmpty();
    }

    /** A fixed-width table: rule, level, result, time, reason (first line), then a summary line. */
    public String table() {
        int w = Math.max(
                30, entries.stream().mapToInt(e -> e.rule().length()).max().orElse(30));
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT, "unicomm conformance: backend %s %s, %d ranks, %s%n", backend, version, ranks, started));
        b.append("declared capabilities: ")
                .append(String.join(", ", capabilities))
                .append('\n');
        b.append("kit ")
                .append(provenance.kitVersion())
                .append(" (")
                .append(provenance.ruleCount())
                .append(" rules, ")
                .append(
                        provenance.ruleSetDigest(),
                        0,
                        Math.min(19, provenance.ruleSetDigest().length()))
                .append("…), unicomm ")
                .append(provenance.unicommVersion())
                .append(", timeout ")
                .append(provenance.settings().getOrDefault(KitSettings.TIMEOUT, "default"))
                .append(
                        provenance.jvmOptions().isEmpty()
                                ? ""
                                : ", worker JVM options " + String.join(" ", provenance.jvmOptions()))
                .append('\n');
        String placed = provenance.settings().get(KitSuite.REPORT_PLACEMENT);
        if (placed != null) b.append("workers across hosts: ").append(placed).append('\n');
        String topology = provenance.settings().get(KitSuite.REPORT_TOPOLOGY);
        if (topology != null)
            b.append("topology (as the communicators saw it): ")
                    .append(topology)
                    .append('\n');
        b.append(String.format(
                Locale.ROOT,
                "%-" + w + "s  %-8s  %-6s  %-7s  %8s  %s%n",
                "rule",
                "level",
                "clause",
                "result",
                "time",
                "reason"));
        String suite = null;
        for (Entry e : entries) {
            if (!e.suite().equals(suite)) {
                suite = e.suite();
                b.append("-- ").append(suite).append('\n');
            }
            String reason = e.reason().lines().findFirst().orElse("");
            if (reason.length() > 160) reason = reason.substring(0, 157) + "...";
            b.append(String.format(
                    Locale.ROOT,
                    "%-" + w + "s  %-8s  %-6s  %-7s  %7.2fs  %s%n",
                    e.rule(),
                    e.level(),
                    e.clause().isEmpty() ? "" : "§" + e.clause(),
                    e.result(),
                    e.time().toMillis() / 1000.0,
                    reason));
            if (!e.algorithms().isEmpty())
                b.append("    ran: ").append(e.algorithms()).append('\n');
        }
        b.append(String.format(
                Locale.ROOT,
                "%d rules: %d passed, %d failed, %d skipped; rules ran %.1f s (plus job start-ups)%n",
                entries.size(),
                count(Result.PASSED),
                count(Result.FAILED),
                count(Result.SKIPPED),
                entries.stream().mapToLong(e -> e.time().toMillis()).sum() / 1000.0));
        b.append(certificationLine()).append('\n');
        if (logDir != null && !logDir.isBlank())
            b.append("worker logs: ").append(logDir).append('\n');
        return b.toString();
    }

    /** The report as one JSON object. */
    public String json() {
        String rules = entries.stream()
                .map(e -> "{\"suite\":" + str(e.suite()) + ",\"rule\":" + str(e.rule())
                        + ",\"level\":" + str(e.level()) + ",\"clause\":" + str(e.clause()) + ",\"result\":"
                        + str(e.result().name()) + ",\"reason\":" + str(e.reason()) + ",\"algorithms\":"
                        + str(e.algorithms())
                        + ",\"seconds\":"
                        + String.format(Locale.ROOT, "%.3f", e.time().toNanos() / 1e9) + "}")
                .collect(Collectors.joining(",\n    ", "[\n    ", "\n  ]"));
        return "{\n  \"backend\": " + str(backend) + ",\n  \"version\": " + str(version)
                + ",\n  \"provenance\": " + provenance.json()
                + ",\n  \"capabilities\": "
                + capabilities.stream().map(KitReport::str).collect(Collectors.joining(",", "[", "]"))
                + ",\n  \"ranks\": " + ranks
                + ",\n  \"started\": " + str(started.toString()) + ",\n  \"java\": "
                + str(Runtime.version().toString())
                + ",\n  \"os\": "
                + str(System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"))
                + ",\n  \"certification\": " + str(certification().name())
                + ",\n  \"logs\": " + str(logDir == null ? "" : logDir)
                + ",\n  \"passed\": " + count(Result.PASSED) + ", \"failed\": " + count(Result.FAILED)
                + ", \"skipped\": " + count(Result.SKIPPED)
                + ",\n  \"rules\": " + rules + "\n}\n";
    }

    /** {@code s} as a JSON string literal (quotes, backslashes and control characters escaped). */
    public static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
                    else b.append(ch);
                }
            }
        }
        return b.append('"').toString();
    }
}
