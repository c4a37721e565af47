package dev.outbox.security;

import java.util.Collection;
import java.util.List;

import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.web.authentication.AuthenticationConverter;

/**
 * A bearer token on its way through Spring Security: unauthenticated it carries the presented token; once a
 * {@link Provider} matched it, it carries the principal's name and authorities and no token at all.
 */
public final class BearerAuthentication extends AbstractAuthenticationToken {

    private final String token;
    private final String name;

    private BearerAuthentication(String token, String name, Collection<? extends GrantedAuthority> authorities) {
        super(authorities);
        this.token = token;
        this.name = name;
        setAuthenticated(name != null);
    }

    @Override
    public Object getCredentials() {
        return token;
    }

    @Override
    public Object getPrincipal() {
        return name;
    }

    /**
     * {@code Authorization: Bearer <token>}. No header: {@code null}, so the request goes on anonymous and the
     * authorization rules decide; another scheme, an empty token or a second Authorization header: refused (a proxy
     * that adds one must not decide who the caller is by which comes first).
     */
    public static AuthenticationConverter converter() {
        return request -> {
            java.util.List<String> headers = java.util.Collections.list(request.getHeaders("Authorization"));
            if (headers.isEmpty()) {
                return null;
            }
            if (headers.size() > 1) {
                throw new BadCredentialsException("more than one Authorization header");
            }
            String header = headers.get(0);
            String token = BearerDigest.tokenOf(header);
            if (token == null) {
                throw new BadCredentialsException("not a bearer token");
            }
            return new BearerAuthentication(token, null, List.of());
        };
    }

    /** Authenticates tokens against one set of principals, granting each the same authorities. */
    public static final class Provider implements AuthenticationProvider {

        private final BearerPrincipals principals;
        private final List<GrantedAuthority> authorities;

        public Provider(BearerPrincipals principals, String... authorities) {
            this.principals = principals;
            this.authorities = AuthorityUtils.createAuthorityList(authorities);
        }

        @Override
        public Authentication authenticate(Authentication authentication) {
            return principals
                    .match((String) authentication.getCredentials())
                    .map(name -> new BearerAuthentication(null, name, authorities))
                    .orElseThrow(() -> new BadCredentialsException("unknown bearer token"));
        }

        @Override
        public boolean supports(Class<?> authentication) {
            return BearerAuthentication.class.isAssignableFrom(authentication);
        }
    }
}
