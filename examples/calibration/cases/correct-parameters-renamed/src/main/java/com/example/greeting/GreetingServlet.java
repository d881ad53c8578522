package com.example.greeting;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Answers GET /greet?name=… with a greeting. */
public class GreetingServlet extends HttpServlet {
    private final Greeter greeter = new Greeter("Hello");

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain");
        resp.getWriter().write(greeter.greet(req.getParameter("name")));
    }
}
