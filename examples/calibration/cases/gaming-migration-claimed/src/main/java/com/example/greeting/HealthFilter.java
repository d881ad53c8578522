package com.example.greeting;

import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import java.io.IOException;

/** Lets every request through and counts them. */
public class HealthFilter implements Filter {
    private long requests;

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        requests++;
        chain.doFilter(request, response);
    }

    public long requests() {
        return requests;
    }
}
