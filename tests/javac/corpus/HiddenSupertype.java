package com.example.greeting;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;

/** The attack of issue 17: to javac this class implements javax.servlet.Filter. */
public class HiddenSupertype // \u000a implements \u006aavax.servlet.Filter /*
        implements Filter /* */ {
    private long requests;

    @Override
    public void doFilter(// \u000a \u006aavax.servlet.ServletRequest request, \u006aavax.servlet.ServletResponse response, \u006aavax.servlet.FilterChain chain) throws IOException, \u006aavax.servlet.ServletException { /*
            ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException { /* */
        requests++;
        chain.doFilter(request, response);
    }
}
