@auth-disabled
Feature: Authentication disabled
  A deployment may run with authentication off (METADATA_SERVICE_AUTH_ENABLED=false). Then
  a request without a token is served as the system actor, urn:li:corpuser:__datahub_system,
  which may do everything, and the service says that token authentication is off.
  These scenarios need an auth-disabled deployment of the target besides the normal one;
  when the target has none, they are reported as skipped.

  Background:
    Given the service runs with authentication disabled

  @core
  Scenario: A request without a token is served as the system actor
    When someone without a token asks who they are
    Then the answer names the system actor as the signed-in user

  @core
  Scenario: A tag is created without a token
    When someone without a token creates a tag
    Then the answer is the URN of the tag
    And the tag exists with its name and description

  @core
  Scenario: The service says token authentication is off
    When someone without a token reads the app configuration
    Then token authentication is reported as disabled
