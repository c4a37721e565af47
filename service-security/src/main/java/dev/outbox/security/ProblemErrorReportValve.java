package dev.outbox.security;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpStatusCode;

/**
 * Tomcat's last-resort error page, as a problem document instead of HTML: the refusals Tomcat makes before any
 * servlet runs (a header over the limit, {@code %00} or {@code %2F} in the path, raw {@code <>|{}} in the request
 * line, a missing Host). Installed on the Host of every server, the management port's included.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean(false);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        HttpStatusCode code = HttpStatusCode.valueOf(status);
        String body = "{\"type\":\"" + Problems.httpType(code) + "\",\"title\":\"" + Problems.title(code)
                + "\",\"status\":" + status + ",\"detail\":\"" + Problems.detail(code) + "\"}";
        try {
            response.setContentType("application/problem+json");
            response.setCharacterEncoding("UTF-8");
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(body);
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the client is gone or the response already committed: nothing more to say, as Tomcat's own valve
        }
    }
}
