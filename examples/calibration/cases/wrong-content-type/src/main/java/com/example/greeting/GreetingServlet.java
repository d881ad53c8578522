package com.example.greeting;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Answers GET /greet?name=… with a greeting. */
public class GreetingServlet extends HttpServlet {
    private final Greeter greeter = new Greeter("Hello");

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/html");
        response.getWriter().write(greeter.greet(request.getParameter("name")));
    }
}
