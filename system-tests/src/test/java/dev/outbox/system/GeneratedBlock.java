package dev.outbox.system;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A part of a document under docs/ that a test writes from its source (the configuration metadata, the alert rules)
 * between two marker lines, {@code <!-- NAME:begin ... -->} and {@code <!-- NAME:end -->}. The test fails when the
 * committed text differs, and leaves the document as it should be under {@code target/docs/}, to copy over.
 */
final class GeneratedBlock {

    private GeneratedBlock() {}

    static void assertCurrent(String document, String name, String generated) {
        Path doc = ComposeConfigurationTests.root().resolve("docs").resolve(document);
        try {
            String text = Files.readString(doc);
            Matcher block = Pattern.compile(
                            "(<!-- " + Pattern.quote(name) + ":begin[^\\n]*-->\\n)(.*?)(<!-- " + Pattern.quote(name)
                                    + ":end -->)",
                            Pattern.DOTALL)
                    .matcher(text);
            assertThat(block.find())
                    .as(doc + " has the markers of the generated " + name)
                    .isTrue();
            String expected = text.substring(0, block.start(2)) + generated + text.substring(block.end(2));
            if (!expected.equals(text)) {
                Path written = Path.of("target", "docs", document).toAbsolutePath();
                Files.createDirectories(written.getParent());
                Files.writeString(written, expected);
                assertThat(text)
                        .as("docs/" + document + " is not what its source says; the current text is in " + written
                                + ": copy it over docs/" + document)
                        .isEqualTo(expected);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
