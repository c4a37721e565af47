package dev.outbox.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front door keeps its promises: the README gives the two commands on its first screen, CI runs the README's test
 * command exactly, and every relative link of the README and docs/ reaches a file of this repository. The README is
 * read for nothing else.
 */
class DocumentationTests {

    private static final String RUN = "./run-local.sh";
    private static final String TEST = "./mvnw -B verify";

    @Test
    void theReadmeGivesBothCommandsOnItsFirstScreenAndCiRunsItsTestCommand() throws IOException {
        List<String> readme =
                Files.readAllLines(ComposeConfigurationTests.root().resolve("README.md"));
        assertThat(readme.size()).as("README.md lines").isLessThanOrEqualTo(200);
        assertThat(commandLine(readme, RUN)).as("the run command's line").isBetween(1, 40);
        assertThat(commandLine(readme, TEST)).as("the test command's line").isBetween(1, 80);

        List<String> ci = Files.readAllLines(ComposeConfigurationTests.root().resolve(".ci/run"));
        assertThat(ci.stream().map(String::strip).filter(line -> !line.startsWith("#")))
                .as(".ci/run runs the README's test command, exactly")
                .contains(TEST);
    }

    @Test
    void everyRelativeLinkOfTheReadmeAndTheDocsResolves() throws IOException {
        Path root = ComposeConfigurationTests.root();
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(documents::add);
        }
        Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path document : documents) {
            Matcher m = link.matcher(Files.readString(document));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*") || target.startsWith("#")) {
                    continue;
                }
                String file = target.replaceAll("#.*$", "");
                checked++;
                if (!Files.exists(document.getParent().resolve(file).normalize())) {
                    broken.add(root.relativize(document) + " -> " + target);
                }
            }
        }
        assertThat(broken).as("links to files that do not exist").isEmpty();
        assertThat(checked).as("relative links checked").isGreaterThan(5);
        assertThat(documents.stream().map(p -> root.relativize(p).toString()))
                .contains(
                        "docs/architecture.md",
                        "docs/operations.md",
                        "docs/configuration.md",
                        "docs/security.md",
                        "docs/testing.md",
                        "docs/benchmarks.md");
    }

    /** The 1-based line of the README on which {@code command} stands alone, in a code block; 0 when none. */
    private static int commandLine(List<String> readme, String command) {
        boolean code = false;
        for (int i = 0; i < readme.size(); i++) {
            String line = readme.get(i).strip();
            if (line.startsWith("```")) {
                code = !code;
            } else if (code && (line.equals(command) || line.startsWith(command + " "))) {
                return i + 1;
            }
        }
        return 0;
    }
}
