    /**
     * Javadoc with a brace } and a "quote
     */
    @SuppressWarnings({"unchecked" /* inline { */})
    public String render(final Map<String, Object> values) throws IOException {
        // opening brace in a comment {
        String url = "http://example.org/*not-a-comment*/"; // trailing } comment
        char slash = '/'; char quote = '"'; char apostrophe = '\'';
        String escaped = "a \"//\" b\\"; /* block
           spanning } lines */ int after = 1;
        int fused = 1/**/+/* x */2;
        String block = """
            text // kept
            /* kept */ "inner" \""" still text
            """;
        /* whole-line block */
        return url + /* mid */ slash;   // done }
    }
