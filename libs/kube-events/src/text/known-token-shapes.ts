/**
 * Tokens known by the shape their vendor issues them in, wherever they
 * appear: the rules of gitleaks' default configuration (config/gitleaks.toml)
 * whose pattern starts with a vendor's prefix, written so that JavaScript's
 * backtracking engine reads them in linear time: each starts with a
 * literal prefix and every repetition is bounded or ends at the first
 * character outside its class. A JSON Web Token is recognised from its
 * start, so that one cut short is still removed.
 */
export const KNOWN_TOKEN_SHAPES: readonly string[] = [
  // JSON Web Tokens (ServiceAccount tokens are), and their base64 form.
  String.raw`eyJ[\w-]{8,}(?:\.[\w-]*){0,2}`,
  String.raw`ZXlK[A-Za-z0-9+/]{20,}={0,2}`,
  // Forges: GitHub, GitLab.
  String.raw`gh[pousr]_[A-Za-z0-9]{30,}`,
  String.raw`github_pat_\w{30,}`,
  String.raw`gl(?:pat|dt|rt|ptt|cbt|imt|oas|ffct|ft|agent|soat)-[\w-]{20,}(?:\.[0-9a-z]{9})?`,
  String.raw`GR1348941[\w-]{20,}`,
  // Chat: Slack, Microsoft Teams webhooks (by their path, below).
  String.raw`xox[abposre]-[\w-]{10,}`,
  String.raw`xapp-[\w-]{10,}`,
  // Clouds: AWS, Google, Azure AD, Alibaba, DigitalOcean, Cloudflare, Fly.io, Heroku, Scalingo.
  String.raw`(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}`,
  String.raw`ABSK[A-Za-z0-9+/]{40,}={0,2}`,
  String.raw`bedrock-api-key-[\w+/=-]{20,}`,
  String.raw`AIza[\w-]{35}`,
  String.raw`ya29\.[\w-]{20,}`,
  String.raw`GOCSPX-[\w-]{20,}`,
  String.raw`[\w~.-]{3}\dQ~[\w~.-]{31,34}`,
  String.raw`LTAI[A-Za-z0-9]{20}`,
  String.raw`do[opr]_v1_[a-f0-9]{64}`,
  String.raw`v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`,
  String.raw`fo1_[\w-]{43}`,
  String.raw`fm(?:1[ar]|2)_[A-Za-z0-9+/]{40,}={0,3}`,
  String.raw`HRKU-AA[\w-]{40,}`,
  String.raw`tk-us-[\w-]{40,}`,
  // Payments: Stripe, Square, Shopify, Flutterwave, Shippo, Duffel, EasyPost, Freemius.
  String.raw`(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,}`,
  String.raw`whsec_[0-9A-Za-z]{20,}`,
  String.raw`(?:EAAA|sq0atp-|sq0csp-)[\w-]{22,}`,
  String.raw`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`,
  String.raw`FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}(?:-X)?`,
  String.raw`shippo_(?:live|test)_[a-fA-F0-9]{40}`,
  String.raw`duffel_(?:test|live)_[\w=-]{43}`,
  String.raw`EZ[AT]K[A-Za-z0-9]{54}`,
  // Packages and registries: npm, PyPI, RubyGems, Clojars, Docker Hub, JFrog, Prefect, Pulumi.
  String.raw`npm_[A-Za-z0-9]{36}`,
  String.raw`pypi-[\w-]{50,}`,
  String.raw`rubygems_[a-f0-9]{48}`,
  String.raw`CLOJARS_[A-Za-z0-9]{60}`,
  String.raw`dckr_(?:pat|oat)_[\w-]{20,}`,
  String.raw`AKCp[A-Za-z0-9]{69}`,
  String.raw`cmVmd[A-Za-z0-9]{59}`,
  String.raw`pnu_[a-zA-Z0-9]{36}`,
  String.raw`pul-[a-f0-9]{40}`,
  // AI services: OpenAI, Anthropic, Hugging Face, Perplexity, Cohere (by keyword, below).
  String.raw`sk-(?:ant-(?:api03-|admin01-)?|proj-|svcacct-|admin-)?[\w-]{20,}`,
  String.raw`hf_[A-Za-z]{34}`,
  String.raw`api_org_[A-Za-z]{34}`,
  String.raw`pplx-[a-zA-Z0-9]{48}`,
  // Messaging and email: Twilio, SendGrid, Brevo (Sendinblue).
  String.raw`SK[0-9a-fA-F]{32}`,
  String.raw`SG\.[\w=.-]{20,}`,
  String.raw`xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`,
  // Secrets managers and identity: HashiCorp Vault and Terraform, 1Password, age, Doppler, Authress, OpenShift, NATS, Tailscale.
  String.raw`hv[sbr]\.[\w-]{24,}`,
  String.raw`s\.[A-Za-z0-9]{24}\b`,
  String.raw`[a-z0-9]{14}\.atlasv1\.[\w=-]{60,70}`,
  String.raw`A3-[A-Z0-9]{6}-[A-Z0-9-]{17,}`,
  String.raw`ops_eyJ[A-Za-z0-9+/]{50,}={0,3}`,
  String.raw`AGE-SECRET-KEY-1[0-9A-Z]{58}`,
  String.raw`dp\.pt\.[A-Za-z0-9]{43}`,
  String.raw`(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][\w-]{10,32}\.[\w+/=-]{30,120}`,
  String.raw`sha256~[\w-]{20,}`,
  // NATS: an nkey seed (a user's, an account's, an operator's…), base32 after `S` and the key's type.
  String.raw`S[UAONCXP][A-Z2-7]{56}\b`,
  // Tailscale: auth, API, OAuth client, SCIM and webhook keys.
  String.raw`tskey-(?:auth|api|client|scim|webhook)-[\w-]{20,}`,
  // Developer services: Atlassian, Adobe, Airtable, Databricks, Dynatrace, Frame.io, Grafana, Harness,
  // Infracost, 42, Linear, MaxMind, Notion, Octopus Deploy, PlanetScale, Postman, ReadMe, Sentry, SettleMint,
  // Sourcegraph, ClickHouse.
  String.raw`ATATT3[\w=-]{40,}`,
  String.raw`p8e-[A-Za-z0-9]{32}`,
  String.raw`pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`,
  String.raw`dapi[a-f0-9]{32}(?:-\d)?`,
  String.raw`dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`,
  String.raw`fio-u-[\w=-]{64}`,
  String.raw`glc_[A-Za-z0-9+/]{32,}={0,3}`,
  String.raw`glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`,
  String.raw`(?:pat|sat)\.[\w-]{22}\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{20}`,
  String.raw`ico-[a-zA-Z0-9]{32}`,
  String.raw`s-s4t2(?:ud|af)-[A-Fa-f0-9]{64}`,
  String.raw`lin_api_[A-Za-z0-9]{40}`,
  String.raw`[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`,
  String.raw`ntn_[0-9]{11}[A-Za-z0-9]{35}`,
  String.raw`API-[A-Z0-9]{26}`,
  String.raw`pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}`,
  String.raw`PMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}`,
  String.raw`rdme_[a-z0-9]{70}`,
  String.raw`sntry[su]_[\w+/=]{40,}`,
  String.raw`sm_(?:aat|pat|sat)_[a-zA-Z0-9]{16}`,
  String.raw`sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}`,
  String.raw`4b1d[A-Za-z0-9]{38}`,
  // Facebook: page tokens, and app access tokens (app id, `|`, secret).
  String.raw`EAA[MC][A-Za-z0-9]{100,}`,
  String.raw`\d{15,16}[|%][\w-]{27,40}`,
];

/**
 * Vendors whose credentials gitleaks finds by the vendor's name in a field
 * or an assignment (`ADAFRUIT_KEY=…`, `"algolia": "…"`), as in its rules
 * of that form: the value after such a name is a credential when it looks
 * like one ({@link VENDOR_VALUE}).
 */
export const VENDOR_KEYWORDS: readonly string[] = [
  'adafruit',
  'adobe',
  'airtable',
  'algolia',
  'alibaba',
  'asana',
  'atlassian',
  'beamer',
  'bitbucket',
  'bittrex',
  'cloudflare',
  'codecov',
  'coinbase',
  'confluent',
  'contentful',
  'datadog',
  'dnkey',
  'discord',
  'droneci',
  'dropbox',
  'etsy',
  'facebook',
  'fastly',
  'finicity',
  'finnhub',
  'flickr',
  'freshbooks',
  'gitter',
  'gocardless',
  'heroku',
  'hubspot',
  'intercom',
  'jfrog',
  'artifactory',
  'bintray',
  'xray',
  'kraken',
  'kucoin',
  'launchdarkly',
  'linear',
  String.raw`linked[_-]?in`,
  'lob',
  'looker',
  'mailchimp',
  'mailgun',
  'mapbox',
  'mattermost',
  String.raw`message[_-]?bird`,
  'netlify',
  String.raw`new[_-]?relic`,
  'nytimes',
  String.raw`new[_-]?york[_-]?times`,
  'plaid',
  'rapidapi',
  'sendbird',
  'sentry',
  'contribsys',
  'snyk',
  'sonar',
  'squarespace',
  'sumo',
  'telegr',
  'travis',
  'twitch',
  'twitter',
  'typeform',
  'yandex',
  'zendesk',
  'meraki',
  'cohere',
  'okta',
  String.raw`private[_-]?ai`,
  'sourcegraph',
  'administrator_login_password',
];

/**
 * A vendor's credential after its name: 8 characters or more of a
 * token's, with a digit (names and words have none), or two such parts
 * around a `:` (Sidekiq's `user:password`).
 */
export const VENDOR_VALUE = String.raw`(?=[\w.=+/:-]{8})(?=[\w.=+/:-]{0,200}\d)[\w.=+/-]{4,}(?::[\w.=+/-]{4,})?`;
