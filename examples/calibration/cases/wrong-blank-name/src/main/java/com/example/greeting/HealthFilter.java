package com.example.greeting;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
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
